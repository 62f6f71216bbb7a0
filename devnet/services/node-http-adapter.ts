import type { IncomingMessage } from "node:http";
import type { HTTPAdapter } from "@x402/core/server";

/** @x402/core's resource server is framework-agnostic; this adapts a plain node:http request to it. */
export class NodeHttpAdapter implements HTTPAdapter {
  readonly #request: IncomingMessage;
  readonly #url: URL;

  constructor(request: IncomingMessage, url: URL) {
    this.#request = request;
    this.#url = url;
  }

  getHeader(name: string): string | undefined {
    const value = this.#request.headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  }

  getMethod(): string {
    return this.#request.method ?? "GET";
  }

  getPath(): string {
    return this.#url.pathname;
  }

  getUrl(): string {
    return this.#url.toString();
  }

  getAcceptHeader(): string {
    return this.getHeader("accept") ?? "";
  }

  getUserAgent(): string {
    return this.getHeader("user-agent") ?? "";
  }

  getQueryParams(): Record<string, string | string[]> {
    const parameters: Record<string, string | string[]> = {};
    for (const key of new Set(this.#url.searchParams.keys())) {
      const values = this.#url.searchParams.getAll(key);
      parameters[key] = values.length === 1 ? (values[0] ?? "") : values;
    }
    return parameters;
  }

  getQueryParam(name: string): string | string[] | undefined {
    return this.getQueryParams()[name];
  }
}
