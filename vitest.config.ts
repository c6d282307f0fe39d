import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "shared/**/*.test.ts",
      "app/**/*.test.ts",
      "bench/**/*.test.ts",
      "scripts/**/*.test.ts",
      "renderer/**/*.test.tsx",
    ],
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
