import react from "@vitejs/plugin-react";
import { describe, expect, it } from "vitest";
import {
  CONTENT_SECURITY_POLICY,
  CONTENT_SECURITY_POLICY_META,
  contentSecurityPolicyConnectingTo,
  developmentContentSecurityPolicy,
  isDocumentResource,
  REACT_REFRESH_PREAMBLE,
  scriptHashSource,
  withContentSecurityPolicy,
} from "./csp.ts";

describe("the Content Security Policy", () => {
  it("is exactly the strict policy of the app's pages", () => {
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
        "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'",
    );
  });

  it("leaves out of the meta tag only what a meta tag cannot carry", () => {
    expect(CONTENT_SECURITY_POLICY_META).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
        "object-src 'none'; base-uri 'none'; form-action 'none'",
    );
  });

  it("adds connect sources to the production policy and nothing else", () => {
    expect(contentSecurityPolicyConnectingTo(["ws://127.0.0.1:9"])).toBe(
      CONTENT_SECURITY_POLICY.replace("connect-src 'self'", "connect-src 'self' ws://127.0.0.1:9"),
    );
  });

  it("allows no inline script, no eval and no remote origin", () => {
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
  });

  it("replaces every policy header a response brings, whatever its case", () => {
    const headers = withContentSecurityPolicy(
      {
        "content-security-policy": ["default-src *"],
        "CONTENT-SECURITY-POLICY-REPORT-ONLY": "default-src *",
        "Content-Type": "text/html",
      },
      CONTENT_SECURITY_POLICY,
    );
    expect(headers).toEqual({
      "Content-Type": ["text/html"],
      "Content-Security-Policy": [CONTENT_SECURITY_POLICY],
    });
  });

  it("adds the policy when a response has no headers", () => {
    expect(withContentSecurityPolicy(undefined, "x")).toEqual({ "Content-Security-Policy": ["x"] });
  });

  it("is sent with documents only", () => {
    expect(isDocumentResource("mainFrame")).toBe(true);
    expect(isDocumentResource("subFrame")).toBe(true);
    expect(isDocumentResource("script")).toBe(false);
    expect(isDocumentResource("image")).toBe(false);
  });
});

describe("the development policy", () => {
  const policy = developmentContentSecurityPolicy("http://localhost:5173");

  it("allows React Fast Refresh's one inline script by its hash, not every inline script", () => {
    expect(policy).toContain(`script-src 'self' ${scriptHashSource(REACT_REFRESH_PREAMBLE)}`);
    expect(policy).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(policy).not.toContain("unsafe-eval");
  });

  it("knows the preamble @vitejs/plugin-react actually injects", () => {
    expect(REACT_REFRESH_PREAMBLE).toBe(react.preambleCode.replace("__BASE__", "/"));
  });

  it("lets the dev server's styles and hot-reload socket in, and keeps the rest", () => {
    expect(policy).toContain("style-src 'self' 'unsafe-inline'");
    expect(policy).toContain("connect-src 'self' ws://localhost:5173");
    expect(policy).toContain(
      "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'",
    );
  });

  it("hashes like a browser does: base64 SHA-256 of the script text", () => {
    // echo -n "alert(1)" | openssl dgst -sha256 -binary | base64
    expect(scriptHashSource("alert(1)")).toBe("'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='");
  });
});
