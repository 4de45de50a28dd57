/**
 * The repository of a SWE-bench instance id (`owner__repo-1234` → `repo`), "" for any other id: a
 * package is usually named after its repository, and so are its console scripts (pylint, sqlfluff,
 * sphinx-build, django-admin).
 */
export function sweRepo(taskId: string): string {
  return /^[\w.-]+__([\w.-]+?)-\d+$/.exec(taskId)?.[1] ?? "";
}
