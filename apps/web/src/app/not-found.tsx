export default function NotFound() {
  return (
    <main className="page">
      <h1>Not found</h1>
      <p data-testid="not-found">This run or branch does not exist, or it belongs to an organization you are not a member of.</p>
      <p>
        <a href="/">Back to the runs</a>
      </p>
    </main>
  );
}
