// Calls a secutil server through openapi-fetch, typed by the paths that
// openapi-typescript generates from static/openapi.json (schema.d.ts, which
// server/openapi_clients_test.go writes beside a copy of this file before
// it compiles it with tsc and runs it): the health check at the root, a
// utility under /api/v1 with an API key and without one, and a range of the
// Pwned Passwords API at the root. Prints what each call answered, in JSON
// for the test to check.
//
// Usage: node check.js BASE_URL API_KEY PREFIX
import createClient from "openapi-fetch";
import type { paths } from "./schema.js";

const [baseUrl, key, prefix] = process.argv.slice(2);
const client = createClient<paths>({ baseUrl });

const health = await client.GET("/health");
const body = { text: "hi", option: "encode" } as const;
const encoded = await client.POST("/api/v1/base64", { body, headers: { "X-API-Key": key } });
const refused = await client.POST("/api/v1/base64", { body });
const range = await client.GET("/range/{prefix}", { params: { path: { prefix } }, parseAs: "text" });

// The fields the schemas give, read with their types: a field the
// document lost would not compile. An error is a JSON Error, or the HTML
// page a browser gets for a 405.
const status: string | undefined = health.data?.status;
const answer: string | undefined = encoded.data?.answer;
const code: string | undefined = typeof refused.error === "object" ? refused.error.code : undefined;

process.stdout.write(JSON.stringify({
  health: { status: health.response.status, value: { ...health.data, status } },
  base64: { status: encoded.response.status, value: { ...encoded.data, answer } },
  base64_without_key: { status: refused.response.status, value: { code } },
  range: { status: range.response.status, body: range.data },
}));
