/**
 * `items`, read from now on for as long as `meanwhile` is pending, not from when they are first
 * iterated: a caller about to wait on something else (Postgres creating the import's run) gets files
 * read while it waits. The items' own iterator must yield to the event loop between items, or the
 * wait's replies queue behind them.
 */
export function readAhead<T>(items: AsyncIterator<T>, meanwhile: Promise<unknown>): AsyncIterable<T> {
  const ahead: Promise<IteratorResult<T>>[] = [];
  let waiting = true;
  meanwhile.then(
    () => (waiting = false),
    () => (waiting = false),
  );
  const reading = (async () => {
    while (waiting) {
      const next = items.next();
      ahead.push(next);
      if ((await next).done) return;
    }
  })();
  // A failure is the iterating caller's to see, when it reaches that item; not an unhandled rejection now.
  reading.catch(() => {});
  return {
    async *[Symbol.asyncIterator]() {
      await reading.catch(() => {});
      for (const next of ahead) {
        const item = await next;
        if (item.done) return;
        yield item.value;
      }
      for (let item = await items.next(); !item.done; item = await items.next()) yield item.value;
    },
  };
}
