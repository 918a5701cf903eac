import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/corpus-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 600_000,
    coverage: {
      provider: "v8",
      include: ["src/**/*.ts", "generator/**/*.ts"],
      reporter: ["text-summary", "text"],
    },
  },
});
