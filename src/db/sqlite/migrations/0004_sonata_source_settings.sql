ALTER TABLE `sources` ADD `settings` text;--> statement-breakpoint
ALTER TABLE `sources` ADD `hub_listeners` text;