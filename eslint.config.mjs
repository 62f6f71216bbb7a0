import nextVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTypescript,
  {
    ignores: [".next/**", ".vercel/**", "node_modules/**", ".devnet/**", "test-results/**", "next-env.d.ts"],
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // A name declared again in an inner scope hides the outer one: a shadowed `release` once
      // kept an Idempotency-Key claimed forever while every check passed.
      "@typescript-eslint/no-shadow": ["error", { ignoreOnInitialization: true }],
    },
  },
];

export default config;
