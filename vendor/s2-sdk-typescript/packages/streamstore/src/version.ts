/**
 * Library version.
 *
 * This file is auto-generated from package.json by scripts/generate-version.ts.
 * Do not edit manually.
 */
export const VERSION = "0.25.0";
