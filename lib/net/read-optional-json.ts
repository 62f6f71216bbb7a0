/**
 * A response body as JSON, or `undefined` when it is empty or not JSON: for bodies that may
 * carry a payment request and may as well carry nothing a client can use.
 */
export async function readOptionalJson(response: Response): Promise<unknown> {
  try {
    const text = await response.text();
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}
