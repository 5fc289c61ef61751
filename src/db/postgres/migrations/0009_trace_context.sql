ALTER TABLE "gathering_tasks" ADD COLUMN "trace_context" text;--> statement-breakpoint
ALTER TABLE "supplier_orders" ADD COLUMN "trace_context" text;