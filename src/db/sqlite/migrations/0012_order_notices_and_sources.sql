ALTER TABLE `order_lines` ADD `source_name` text;--> statement-breakpoint
ALTER TABLE `order_lines` ADD `source_type` text;--> statement-breakpoint
ALTER TABLE `order_lines` ADD `notice` text;--> statement-breakpoint
ALTER TABLE `supplier_orders` ADD `notified_charge_ids` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `instance_products` ADD `fulfilment` text DEFAULT 'manual' NOT NULL;--> statement-breakpoint
ALTER TABLE `quote_lines` ADD `source_name` text;--> statement-breakpoint
ALTER TABLE `quote_lines` ADD `source_type` text;--> statement-breakpoint
-- Issue 49: quote and order lines name their source (its name and type as they are now).
UPDATE `quote_lines` SET `source_name` = (SELECT `name` FROM `sources` WHERE `sources`.`id` = `quote_lines`.`source_id`), `source_type` = (SELECT `type` FROM `sources` WHERE `sources`.`id` = `quote_lines`.`source_id`) WHERE `source_id` IS NOT NULL;--> statement-breakpoint
UPDATE `order_lines` SET `source_name` = (SELECT `name` FROM `sources` WHERE `sources`.`id` = `order_lines`.`source_id`), `source_type` = (SELECT `type` FROM `sources` WHERE `sources`.`id` = `order_lines`.`source_id`) WHERE `source_id` IS NOT NULL;--> statement-breakpoint
-- The demo catalogue's two mandatory products need no delivery; orders placed before keep their lines.
UPDATE `instance_products` SET `fulfilment` = 'none' WHERE `mandatory` = 1 AND `name` IN ('Administration fee', 'Service desk access') AND `instance_id` IN (SELECT `id` FROM `instances` WHERE `code` = 'DEMO');
