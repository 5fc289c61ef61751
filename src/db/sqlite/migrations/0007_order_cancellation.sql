ALTER TABLE `order_lines` ADD `purchase_mrc_minor` integer;--> statement-breakpoint
ALTER TABLE `order_lines` ADD `purchase_nrc_minor` integer;--> statement-breakpoint
ALTER TABLE `order_lines` ADD `currency` text DEFAULT 'EUR' NOT NULL;--> statement-breakpoint
ALTER TABLE `order_lines` ADD `price_change` text;--> statement-breakpoint
ALTER TABLE `order_lines` ADD `cancellation` text;--> statement-breakpoint
ALTER TABLE `orders` ADD `cancel_reason` text;--> statement-breakpoint
ALTER TABLE `orders` ADD `cancel_requested_at` integer;--> statement-breakpoint
ALTER TABLE `orders` ADD `cancel_requested_by_user_id` text REFERENCES users(id);--> statement-breakpoint
ALTER TABLE `orders` ADD `cancellation_charges` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `supplier_orders` ADD `cancel_requested_at` integer;--> statement-breakpoint
ALTER TABLE `supplier_orders` ADD `cancel_posted_at` integer;--> statement-breakpoint
ALTER TABLE `supplier_orders` ADD `seller_cancel_id` text;--> statement-breakpoint
ALTER TABLE `supplier_orders` ADD `seller_cancel_state` text;--> statement-breakpoint
UPDATE `order_lines` SET `currency` = (SELECT `currency` FROM `quote_lines` WHERE `quote_lines`.`id` = `order_lines`.`quote_line_id`), `purchase_mrc_minor` = (SELECT `purchase_mrc_minor` FROM `quote_lines` WHERE `quote_lines`.`id` = `order_lines`.`quote_line_id`), `purchase_nrc_minor` = (SELECT `purchase_nrc_minor` FROM `quote_lines` WHERE `quote_lines`.`id` = `order_lines`.`quote_line_id`);