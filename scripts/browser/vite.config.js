import { defineConfig } from "vite"
import react from "@vitejs/plugin-react"

export default defineConfig({
  plugins: [react()],
  // The kit's dependencies (cosmjs, ethers) expect a browser build; nothing of Node's is polyfilled.
  build: { outDir: "dist", chunkSizeWarningLimit: 8000 },
})
