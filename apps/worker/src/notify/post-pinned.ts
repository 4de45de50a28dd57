import { request as httpRequest, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";

/**
 * POSTs to `url` over a connection to `address` only: the lookup the socket makes answers with the
 * address that was checked, so a name that resolves elsewhere by now (DNS rebinding) changes nothing.
 * TLS still verifies the certificate against the URL's host name. Redirects are not followed (node's
 * client never does). Resolves with the status code; the body is read and dropped, never kept.
 */
export function postPinned(url: string, target: { address: string; family: 4 | 6 }, headers: Record<string, string>, body: string, timeoutMs: number): Promise<number> {
  const parsed = new URL(url);
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const options: RequestOptions = { method: "POST", headers: { ...headers, "content-length": String(Buffer.byteLength(body)) }, lookup, timeout: timeoutMs, agent: false };
  return new Promise((resolve, reject) => {
    const request = (parsed.protocol === "https:" ? httpsRequest : httpRequest)(parsed, options, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
      response.on("error", reject);
    });
    request.on("timeout", () => request.destroy(new Error("timed out")));
    request.on("error", (error) => {
      // A peer that answered something other than HTTP may keep its side open: the socket is ours to end.
      request.destroy();
      reject(error);
    });
    request.end(body);
  });
}
