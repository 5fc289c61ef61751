ALTER TABLE "sources" ADD COLUMN "settings" jsonb;--> statement-breakpoint
ALTER TABLE "sources" ADD COLUMN "hub_listeners" jsonb;