DROP INDEX "availability_requests_list_idx";--> statement-breakpoint
DROP INDEX "availability_requests_customer_idx";--> statement-breakpoint
DROP INDEX "customers_list_idx";--> statement-breakpoint
DROP INDEX "projects_customer_idx";--> statement-breakpoint
DROP INDEX "quotes_list_idx";--> statement-breakpoint
CREATE INDEX "availability_requests_list_idx" ON "availability_requests" USING btree ("instance_id","created_at","id" collate "C");--> statement-breakpoint
CREATE INDEX "availability_requests_customer_idx" ON "availability_requests" USING btree ("customer_id","created_at","id" collate "C");--> statement-breakpoint
CREATE INDEX "customers_list_idx" ON "customers" USING btree ("instance_id","name_folded" collate "C","id" collate "C");--> statement-breakpoint
CREATE INDEX "projects_customer_idx" ON "projects" USING btree ("instance_id","customer_id","created_at","id" collate "C");--> statement-breakpoint
CREATE INDEX "quotes_list_idx" ON "quotes" USING btree ("instance_id","created_at","id" collate "C");