-- Gathering tasks get an integer key (SQLite's rowid) instead of a TypeID; products follow.
-- Hand-ordered from drizzle-kit's output: the new task ids are the old table's rowids, and products are
-- copied with their task's new id before the old tables go. openDatabase runs migrations with
-- foreign_keys off and checks every key afterwards (SQLite's documented procedure for table rebuilds).
CREATE TABLE `__new_gathering_tasks` (
	`id` integer PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`availability_request_id` text NOT NULL,
	`source_id` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`available_at` integer NOT NULL,
	`lease_owner` text,
	`lease_expires_at` integer,
	`error_code` text,
	`error_message` text,
	`finished_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`availability_request_id`) REFERENCES `availability_requests`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_gathering_tasks`("id", "instance_id", "availability_request_id", "source_id", "status", "attempts", "available_at", "lease_owner", "lease_expires_at", "error_code", "error_message", "finished_at", "created_at", "updated_at") SELECT rowid, "instance_id", "availability_request_id", "source_id", "status", "attempts", "available_at", "lease_owner", "lease_expires_at", "error_code", "error_message", "finished_at", "created_at", "updated_at" FROM `gathering_tasks` ORDER BY rowid;
--> statement-breakpoint
CREATE TABLE `__new_availability_request_products` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`availability_request_id` text NOT NULL,
	`gathering_task_id` integer NOT NULL,
	`source_id` text NOT NULL,
	`network` text NOT NULL,
	`technology_type` text NOT NULL,
	`connection_type` text NOT NULL,
	`download_kbps` integer NOT NULL,
	`upload_kbps` integer NOT NULL,
	`contract_term_months` integer NOT NULL,
	`purchase_mrc_minor` integer NOT NULL,
	`purchase_nrc_minor` integer NOT NULL,
	`mrc_minor` integer NOT NULL,
	`nrc_minor` integer NOT NULL,
	`currency` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`availability_request_id`) REFERENCES `availability_requests`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`gathering_task_id`) REFERENCES `gathering_tasks`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_availability_request_products`("id", "gathering_task_id", "instance_id", "availability_request_id", "source_id", "network", "technology_type", "connection_type", "download_kbps", "upload_kbps", "contract_term_months", "purchase_mrc_minor", "purchase_nrc_minor", "mrc_minor", "nrc_minor", "currency", "created_at") SELECT p."id", t.rowid, p."instance_id", p."availability_request_id", p."source_id", p."network", p."technology_type", p."connection_type", p."download_kbps", p."upload_kbps", p."contract_term_months", p."purchase_mrc_minor", p."purchase_nrc_minor", p."mrc_minor", p."nrc_minor", p."currency", p."created_at" FROM `availability_request_products` p JOIN `gathering_tasks` t ON t."id" = p."gathering_task_id";
--> statement-breakpoint
DROP TABLE `availability_request_products`;
--> statement-breakpoint
DROP TABLE `gathering_tasks`;
--> statement-breakpoint
ALTER TABLE `__new_gathering_tasks` RENAME TO `gathering_tasks`;
--> statement-breakpoint
ALTER TABLE `__new_availability_request_products` RENAME TO `availability_request_products`;
--> statement-breakpoint
CREATE INDEX `availability_request_products_request_idx` ON `availability_request_products` (`availability_request_id`);
--> statement-breakpoint
CREATE UNIQUE INDEX `gathering_tasks_request_source_unique` ON `gathering_tasks` (`availability_request_id`,`source_id`);
--> statement-breakpoint
CREATE INDEX `gathering_tasks_claim_idx` ON `gathering_tasks` (`status`,`available_at`,`id`);
