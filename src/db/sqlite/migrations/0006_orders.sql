CREATE TABLE `order_lines` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`order_id` text NOT NULL,
	`quote_line_id` text NOT NULL,
	`position` integer NOT NULL,
	`name` text NOT NULL,
	`fulfilment` text NOT NULL,
	`status` text NOT NULL,
	`supplier_status` text,
	`supplier_order_ref` text,
	`source_id` text,
	`supplier_order_id` text,
	`supplier_item_id` text,
	`contract_term_months` integer,
	`order_terms` text,
	`expected_completion_date` integer,
	`completion_date` integer,
	`inventory_product_id` text,
	`inventory_product_status` text,
	`milestones` text NOT NULL,
	`charges` text NOT NULL,
	`error_code` text,
	`error_message` text,
	`note` text,
	`status_changed_by_user_id` text,
	`status_changed_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`supplier_order_ref`) REFERENCES `supplier_orders`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`status_changed_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `order_lines_position_unique` ON `order_lines` (`order_id`,`position`);--> statement-breakpoint
CREATE INDEX `order_lines_supplier_order_idx` ON `order_lines` (`supplier_order_ref`);--> statement-breakpoint
CREATE TABLE `orders` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`quote_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`created_by_user_id` text,
	`status` text NOT NULL,
	`requested_completion_date` integer NOT NULL,
	`contact` text,
	`version` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`quote_id`) REFERENCES `quotes`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `orders_list_idx` ON `orders` (`instance_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `orders_quote_idx` ON `orders` (`quote_id`);--> statement-breakpoint
CREATE INDEX `orders_customer_idx` ON `orders` (`instance_id`,`customer_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `supplier_orders` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`order_id` text NOT NULL,
	`source_id` text NOT NULL,
	`status` text NOT NULL,
	`seller_order_id` text,
	`seller_state` text,
	`attempts` integer NOT NULL,
	`lease_owner` text,
	`lease_expires_at` integer,
	`next_check_at` integer,
	`hurried_at` integer,
	`posted_at` integer,
	`error_code` text,
	`error_message` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `supplier_orders_due_idx` ON `supplier_orders` (`next_check_at`);--> statement-breakpoint
CREATE INDEX `supplier_orders_order_idx` ON `supplier_orders` (`order_id`);--> statement-breakpoint
ALTER TABLE `availability_request_products` ADD `order_terms` text;--> statement-breakpoint
ALTER TABLE `quote_lines` ADD `source_id` text;--> statement-breakpoint
ALTER TABLE `quote_lines` ADD `purchase_mrc_minor` integer;--> statement-breakpoint
ALTER TABLE `quote_lines` ADD `purchase_nrc_minor` integer;--> statement-breakpoint
ALTER TABLE `quote_lines` ADD `order_terms` text;