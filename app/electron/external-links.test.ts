import { describe, expect, it } from "vitest";
import { externalLinkTarget } from "./external-links.ts";

describe("externalLinkTarget", () => {
  it("lets web pages out, normalised", () => {
    expect(externalLinkTarget("https://www.npmjs.com/package/x")).toBe("https://www.npmjs.com/package/x");
    expect(externalLinkTarget("HTTP://Example.COM")).toBe("http://example.com/");
  });

  it("keeps every other scheme in", () => {
    for (const url of [
      "file:///etc/passwd",
      "javascript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "smb://server/share",
      "ms-msdt:/id PCWDiagnostic",
      "vscode://file/etc/passwd",
      "mailto:a@example.com",
      "about:blank",
    ]) {
      expect(externalLinkTarget(url)).toBeNull();
    }
  });

  it("refuses credentials in the URL, malformed and overlong URLs", () => {
    expect(externalLinkTarget("https://user:secret@example.com/")).toBeNull();
    expect(externalLinkTarget("https://user@example.com/")).toBeNull();
    expect(externalLinkTarget("https://")).toBeNull();
    expect(externalLinkTarget("not a url")).toBeNull();
    expect(externalLinkTarget(`https://example.com/${"a".repeat(3000)}`)).toBeNull();
  });
});
