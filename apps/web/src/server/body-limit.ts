import "server-only";

/**
 * The request with its body read into memory, or a 413 as soon as it passes `limit` bytes: the
 * declared length is refused before a byte is read, and a body with none is cut off while streaming.
 * Nothing past the limit is parsed or kept.
 */
export async function withBodyLimit(req: Request, limit: number): Promise<Request | Response> {
  if (!req.body) return req;
  const tooLarge = () => Response.json({ message: `The request body is over the ${Math.round(limit / (1024 * 1024))} MiB this endpoint takes; send less at a time.` }, { status: 413 });
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (declared > limit) return tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return tooLarge();
    }
    chunks.push(value);
  }
  return new Request(req, { body: Buffer.concat(chunks), duplex: "half" } as RequestInit);
}
