// Footnote's web client: one page, bundled from npm packages (no CDN at run time).
import { defineConfig } from "vitest/config";

export default defineConfig({
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // Hosting's Content-Security-Policy allows only same-origin scripts, styles and
    // images: nothing may be inlined as a data: URI.
    assetsInlineLimit: 0,
    target: "es2022",
  },
  test: {
    environment: "happy-dom",
    include: ["test/**/*.test.ts"],
  },
});
