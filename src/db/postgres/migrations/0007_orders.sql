CREATE TABLE "order_lines" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"order_id" text NOT NULL,
	"quote_line_id" text NOT NULL,
	"position" integer NOT NULL,
	"name" text NOT NULL,
	"fulfilment" text NOT NULL,
	"status" text NOT NULL,
	"supplier_status" text,
	"supplier_order_ref" text,
	"source_id" text,
	"supplier_order_id" text,
	"supplier_item_id" text,
	"contract_term_months" integer,
	"order_terms" jsonb,
	"expected_completion_date" timestamp (3) with time zone,
	"completion_date" timestamp (3) with time zone,
	"inventory_product_id" text,
	"inventory_product_status" text,
	"milestones" jsonb NOT NULL,
	"charges" jsonb NOT NULL,
	"error_code" text,
	"error_message" text,
	"note" text,
	"status_changed_by_user_id" text,
	"status_changed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"quote_id" text NOT NULL,
	"customer_id" text NOT NULL,
	"created_by_user_id" text,
	"status" text NOT NULL,
	"requested_completion_date" timestamp (3) with time zone NOT NULL,
	"contact" jsonb,
	"version" integer NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "supplier_orders" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"order_id" text NOT NULL,
	"source_id" text NOT NULL,
	"status" text NOT NULL,
	"seller_order_id" text,
	"seller_state" text,
	"attempts" integer NOT NULL,
	"lease_owner" text,
	"lease_expires_at" timestamp (3) with time zone,
	"next_check_at" timestamp (3) with time zone,
	"hurried_at" timestamp (3) with time zone,
	"posted_at" timestamp (3) with time zone,
	"error_code" text,
	"error_message" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "availability_request_products" ADD COLUMN "order_terms" jsonb;--> statement-breakpoint
ALTER TABLE "quote_lines" ADD COLUMN "source_id" text;--> statement-breakpoint
ALTER TABLE "quote_lines" ADD COLUMN "purchase_mrc_minor" integer;--> statement-breakpoint
ALTER TABLE "quote_lines" ADD COLUMN "purchase_nrc_minor" integer;--> statement-breakpoint
ALTER TABLE "quote_lines" ADD COLUMN "order_terms" jsonb;--> statement-breakpoint
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_supplier_order_ref_supplier_orders_id_fk" FOREIGN KEY ("supplier_order_ref") REFERENCES "public"."supplier_orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_status_changed_by_user_id_users_id_fk" FOREIGN KEY ("status_changed_by_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_quote_id_quotes_id_fk" FOREIGN KEY ("quote_id") REFERENCES "public"."quotes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "supplier_orders" ADD CONSTRAINT "supplier_orders_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "supplier_orders" ADD CONSTRAINT "supplier_orders_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "supplier_orders" ADD CONSTRAINT "supplier_orders_source_id_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."sources"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "order_lines_position_unique" ON "order_lines" USING btree ("order_id","position");--> statement-breakpoint
CREATE INDEX "order_lines_supplier_order_idx" ON "order_lines" USING btree ("supplier_order_ref");--> statement-breakpoint
CREATE INDEX "orders_list_idx" ON "orders" USING btree ("instance_id","created_at","id" collate "C");--> statement-breakpoint
CREATE INDEX "orders_quote_idx" ON "orders" USING btree ("quote_id");--> statement-breakpoint
CREATE INDEX "orders_customer_idx" ON "orders" USING btree ("instance_id","customer_id","created_at","id" collate "C");--> statement-breakpoint
CREATE INDEX "supplier_orders_due_idx" ON "supplier_orders" USING btree ("next_check_at");--> statement-breakpoint
CREATE INDEX "supplier_orders_order_idx" ON "supplier_orders" USING btree ("order_id");