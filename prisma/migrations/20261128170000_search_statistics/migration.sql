-- A rare term's page is found in the trigram index, a common one's by walking the branch in id
-- order: the planner picks by how many rows it expects the term to match. With the default sample
-- (30,000 rows) a term in a few hundred of a million rollouts is estimated from a couple of dozen
-- hits, and the estimate moved enough from one ANALYZE to the next to send a rare term down the
-- id-order walk (129 ms instead of 13 ms at 1,000,000 rollouts). A ten times larger sample keeps
-- the estimate, and the plan, steady; ANALYZE of a million search rows takes about 1.6 s.
ALTER TABLE "RolloutSearch"
  ALTER COLUMN "taskId" SET STATISTICS 1000,
  ALTER COLUMN "prompt" SET STATISTICS 1000,
  ALTER COLUMN "response" SET STATISTICS 1000;
