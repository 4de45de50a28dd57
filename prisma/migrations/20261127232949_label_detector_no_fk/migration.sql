-- A label's detector is no longer checked by a foreign key: ingest inserts tens of thousands of
-- labels a second, and that check cost about a quarter of the label insert. The ids come from the
-- harness version's own Detector rows, which are never deleted.
-- DropForeignKey
ALTER TABLE "RolloutLabel" DROP CONSTRAINT "RolloutLabel_detectorId_fkey";
