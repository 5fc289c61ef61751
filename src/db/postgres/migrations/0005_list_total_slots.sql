ALTER TABLE "list_totals" ADD COLUMN "slot" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "list_totals" DROP CONSTRAINT "list_totals_instance_id_list_pk";--> statement-breakpoint
ALTER TABLE "list_totals" ADD CONSTRAINT "list_totals_instance_id_list_slot_pk" PRIMARY KEY("instance_id","list","slot");--> statement-breakpoint
-- Written by hand (drizzle-kit put the new primary key before the column it names): each inserting
-- transaction adds its rows to one of 16 slots of the total, chosen by its transaction id, instead of to the
-- one row that every concurrent create of the instance then queued for until the holder committed. All
-- statements of a transaction use the same slot. The 16 is LIST_TOTAL_SLOTS in schema/list-totals.ts.
CREATE OR REPLACE FUNCTION "list_totals_add"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "list_totals" ("instance_id", "list", "slot", "total")
    SELECT "instance_id", TG_ARGV[0], (pg_current_xact_id()::text::bigint % 16)::smallint, count(*)::integer
      FROM "inserted_rows" GROUP BY "instance_id"
    ORDER BY "instance_id" COLLATE "C"
  ON CONFLICT ("instance_id", "list", "slot") DO UPDATE SET "total" = "list_totals"."total" + EXCLUDED."total";
  RETURN NULL;
END
$$;
