const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `get` until it answers something truthy, and returns that; fails naming what it waited for. */
export async function until<T>(what: string, get: () => Promise<T | null | undefined | false>, timeoutMs = 180_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await get();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
