CREATE TABLE "list_totals" (
	"instance_id" text NOT NULL,
	"list" text NOT NULL,
	"total" integer NOT NULL,
	CONSTRAINT "list_totals_instance_id_list_pk" PRIMARY KEY("instance_id","list")
);
--> statement-breakpoint
ALTER TABLE "list_totals" ADD CONSTRAINT "list_totals_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
-- Written by hand: the totals of the unfiltered lists, kept by statement-level triggers (one upsert per
-- INSERT statement, however many rows it adds) in the transaction that inserts the rows.
CREATE FUNCTION "list_totals_add"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "list_totals" ("instance_id", "list", "total")
    SELECT "instance_id", TG_ARGV[0], count(*)::integer FROM "inserted_rows" GROUP BY "instance_id"
    ORDER BY "instance_id" COLLATE "C"
  ON CONFLICT ("instance_id", "list") DO UPDATE SET "total" = "list_totals"."total" + EXCLUDED."total";
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "availability_requests_list_total" AFTER INSERT ON "availability_requests"
  REFERENCING NEW TABLE AS "inserted_rows" FOR EACH STATEMENT EXECUTE FUNCTION "list_totals_add"('availability_requests');
--> statement-breakpoint
CREATE TRIGGER "customers_list_total" AFTER INSERT ON "customers"
  REFERENCING NEW TABLE AS "inserted_rows" FOR EACH STATEMENT EXECUTE FUNCTION "list_totals_add"('customers');
--> statement-breakpoint
CREATE TRIGGER "quotes_list_total" AFTER INSERT ON "quotes"
  REFERENCING NEW TABLE AS "inserted_rows" FOR EACH STATEMENT EXECUTE FUNCTION "list_totals_add"('quotes');
--> statement-breakpoint
INSERT INTO "list_totals" ("instance_id", "list", "total")
  SELECT "instance_id", 'availability_requests', count(*)::integer FROM "availability_requests" GROUP BY "instance_id";
--> statement-breakpoint
INSERT INTO "list_totals" ("instance_id", "list", "total")
  SELECT "instance_id", 'customers', count(*)::integer FROM "customers" GROUP BY "instance_id";
--> statement-breakpoint
INSERT INTO "list_totals" ("instance_id", "list", "total")
  SELECT "instance_id", 'quotes', count(*)::integer FROM "quotes" GROUP BY "instance_id";
