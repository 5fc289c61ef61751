ALTER TABLE "order_lines" ADD COLUMN "source_name" text;--> statement-breakpoint
ALTER TABLE "order_lines" ADD COLUMN "source_type" text;--> statement-breakpoint
ALTER TABLE "order_lines" ADD COLUMN "notice" jsonb;--> statement-breakpoint
ALTER TABLE "supplier_orders" ADD COLUMN "notified_charge_ids" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "instance_products" ADD COLUMN "fulfilment" text DEFAULT 'manual' NOT NULL;--> statement-breakpoint
ALTER TABLE "quote_lines" ADD COLUMN "source_name" text;--> statement-breakpoint
ALTER TABLE "quote_lines" ADD COLUMN "source_type" text;--> statement-breakpoint
-- Issue 49: quote and order lines name their source (its name and type as they are now).
UPDATE "quote_lines" SET "source_name" = "sources"."name", "source_type" = "sources"."type" FROM "sources" WHERE "sources"."id" = "quote_lines"."source_id";--> statement-breakpoint
UPDATE "order_lines" SET "source_name" = "sources"."name", "source_type" = "sources"."type" FROM "sources" WHERE "sources"."id" = "order_lines"."source_id";--> statement-breakpoint
-- The demo catalogue's two mandatory products need no delivery; orders placed before keep their lines.
UPDATE "instance_products" SET "fulfilment" = 'none' WHERE "mandatory" AND "name" IN ('Administration fee', 'Service desk access') AND "instance_id" IN (SELECT "id" FROM "instances" WHERE "code" = 'DEMO');
