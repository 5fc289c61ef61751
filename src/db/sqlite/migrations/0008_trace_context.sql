ALTER TABLE `gathering_tasks` ADD `trace_context` text;--> statement-breakpoint
ALTER TABLE `supplier_orders` ADD `trace_context` text;