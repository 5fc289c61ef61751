ALTER TABLE "order_lines" ADD COLUMN "purchase_mrc_minor" integer;--> statement-breakpoint
ALTER TABLE "order_lines" ADD COLUMN "purchase_nrc_minor" integer;--> statement-breakpoint
ALTER TABLE "order_lines" ADD COLUMN "currency" text DEFAULT 'EUR' NOT NULL;--> statement-breakpoint
ALTER TABLE "order_lines" ADD COLUMN "price_change" jsonb;--> statement-breakpoint
ALTER TABLE "order_lines" ADD COLUMN "cancellation" jsonb;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "cancel_reason" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "cancel_requested_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "cancel_requested_by_user_id" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "cancellation_charges" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "supplier_orders" ADD COLUMN "cancel_requested_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "supplier_orders" ADD COLUMN "cancel_posted_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "supplier_orders" ADD COLUMN "seller_cancel_id" text;--> statement-breakpoint
ALTER TABLE "supplier_orders" ADD COLUMN "seller_cancel_state" text;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_cancel_requested_by_user_id_users_id_fk" FOREIGN KEY ("cancel_requested_by_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
UPDATE "order_lines" SET "currency" = "quote_lines"."currency", "purchase_mrc_minor" = "quote_lines"."purchase_mrc_minor", "purchase_nrc_minor" = "quote_lines"."purchase_nrc_minor" FROM "quote_lines" WHERE "quote_lines"."id" = "order_lines"."quote_line_id";