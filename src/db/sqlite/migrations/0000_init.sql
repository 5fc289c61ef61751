CREATE TABLE `addresses` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`input_kind` text NOT NULL,
	`street` text NOT NULL,
	`city` text NOT NULL,
	`house_number` text NOT NULL,
	`house_number_addition` text NOT NULL,
	`postal_code` text NOT NULL,
	`country_code` text NOT NULL,
	`continent_code` text NOT NULL,
	`latitude` real,
	`longitude` real,
	`coordinates_precision` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `availability_request_products` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`availability_request_id` text NOT NULL,
	`gathering_task_id` text NOT NULL,
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
CREATE INDEX `availability_request_products_request_idx` ON `availability_request_products` (`availability_request_id`);--> statement-breakpoint
CREATE TABLE `availability_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`address_id` text NOT NULL,
	`created_by_user_id` text,
	`customer_id` text,
	`project_id` text,
	`price_plan_id` text NOT NULL,
	`filters` text NOT NULL,
	`status` text NOT NULL,
	`sources_total` integer NOT NULL,
	`sources_finished` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`address_id`) REFERENCES `addresses`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`price_plan_id`) REFERENCES `price_plans`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `availability_requests_list_idx` ON `availability_requests` (`instance_id`,"created_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX `availability_requests_customer_idx` ON `availability_requests` (`customer_id`,"created_at" desc,"id" desc);--> statement-breakpoint
CREATE TABLE `gathering_tasks` (
	`id` text PRIMARY KEY NOT NULL,
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
CREATE UNIQUE INDEX `gathering_tasks_request_source_unique` ON `gathering_tasks` (`availability_request_id`,`source_id`);--> statement-breakpoint
CREATE INDEX `gathering_tasks_claim_idx` ON `gathering_tasks` (`status`,`available_at`);--> statement-breakpoint
CREATE TABLE `catalog_area_cities` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`area_id` text NOT NULL,
	`city_lower` text NOT NULL,
	FOREIGN KEY (`area_id`) REFERENCES `catalog_areas`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `catalog_area_cities_city_idx` ON `catalog_area_cities` (`city_lower`);--> statement-breakpoint
CREATE TABLE `catalog_area_postal_code_ranges` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`area_id` text NOT NULL,
	`from_prefix` text NOT NULL,
	`to_prefix` text NOT NULL,
	FOREIGN KEY (`area_id`) REFERENCES `catalog_areas`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `catalog_area_ranges_area_idx` ON `catalog_area_postal_code_ranges` (`area_id`);--> statement-breakpoint
CREATE TABLE `catalog_areas` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`key` text NOT NULL,
	`name` text NOT NULL,
	`country_code` text NOT NULL,
	`position` integer NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `catalog_areas_instance_key_unique` ON `catalog_areas` (`instance_id`,`key`);--> statement-breakpoint
CREATE TABLE `catalog_offers` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`source_id` text NOT NULL,
	`area_id` text,
	`technology_type` text NOT NULL,
	`connection_type` text NOT NULL,
	`download_kbps` integer NOT NULL,
	`upload_kbps` integer NOT NULL,
	`contract_term_months` integer NOT NULL,
	`purchase_mrc_minor` integer NOT NULL,
	`purchase_nrc_minor` integer NOT NULL,
	`currency` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`area_id`) REFERENCES `catalog_areas`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `catalog_offers_source_area_idx` ON `catalog_offers` (`source_id`,`area_id`);--> statement-breakpoint
CREATE TABLE `sources` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`key` text NOT NULL,
	`name` text NOT NULL,
	`network` text NOT NULL,
	`type` text NOT NULL,
	`country_codes` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`latency_min_ms` integer DEFAULT 0 NOT NULL,
	`latency_max_ms` integer DEFAULT 0 NOT NULL,
	`endpoint_url` text,
	`credentials` text,
	`timeout_ms` integer DEFAULT 10000 NOT NULL,
	`concurrency` integer DEFAULT 4 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sources_instance_key_unique` ON `sources` (`instance_id`,`key`);--> statement-breakpoint
CREATE TABLE `customer_financial_details` (
	`customer_id` text PRIMARY KEY NOT NULL,
	`name` text,
	`email` text,
	`street` text,
	`house_number` text,
	`house_number_addition` text,
	`postal_code` text,
	`city` text,
	`region` text,
	`country_code` text,
	`vat_number` text,
	`bank_account_number` text,
	`apply_vat` integer DEFAULT false NOT NULL,
	`payment_term_days` integer,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `customers` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`auto_sequence` integer NOT NULL,
	`name` text NOT NULL,
	`name_folded` text NOT NULL,
	`external_id` text,
	`legal_name` text,
	`business_registration_number` text,
	`website` text,
	`interconnected` integer DEFAULT false NOT NULL,
	`preferred_currency` text,
	`monthly_availability_request_limit` integer,
	`internal_notes` text,
	`agent_id` text,
	`network_name_override` text,
	`customer_region` text,
	`price_plan_id` text NOT NULL,
	`account_manager_user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`price_plan_id`) REFERENCES `price_plans`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_manager_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `customers_instance_sequence_unique` ON `customers` (`instance_id`,`auto_sequence`);--> statement-breakpoint
CREATE INDEX `customers_list_idx` ON `customers` (`instance_id`,`name_folded`,`id`);--> statement-breakpoint
CREATE TABLE `price_plan_rules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`price_plan_id` text NOT NULL,
	`network` text,
	`technology_type` text,
	`connection_type` text,
	`mrc_markup_bp` integer NOT NULL,
	`nrc_markup_bp` integer NOT NULL,
	FOREIGN KEY (`price_plan_id`) REFERENCES `price_plans`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `price_plan_rules_criteria_unique` ON `price_plan_rules` (`price_plan_id`,`network`,`technology_type`,`connection_type`);--> statement-breakpoint
CREATE TABLE `price_plans` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`name` text NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`mrc_markup_bp` integer NOT NULL,
	`nrc_markup_bp` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `price_plans_instance_name_unique` ON `price_plans` (`instance_id`,`name`);--> statement-breakpoint
CREATE TABLE `projects` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `projects_customer_idx` ON `projects` (`instance_id`,`customer_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`instance_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`state` text NOT NULL,
	`response_status` integer,
	`response_body` text,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`instance_id`, `key`),
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `instance_products` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`mandatory` integer NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`mrc_minor` integer NOT NULL,
	`nrc_minor` integer NOT NULL,
	`currency` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `instance_products_list_idx` ON `instance_products` (`instance_id`,`mandatory`,`name`);--> statement-breakpoint
CREATE TABLE `quote_lines` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`quote_id` text NOT NULL,
	`kind` text NOT NULL,
	`product_id` text NOT NULL,
	`name` text NOT NULL,
	`network` text,
	`technology_type` text,
	`connection_type` text,
	`download_kbps` integer,
	`upload_kbps` integer,
	`contract_term_months` integer,
	`mrc_minor` integer NOT NULL,
	`nrc_minor` integer NOT NULL,
	`currency` text NOT NULL,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`quote_id`) REFERENCES `quotes`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `quote_lines_product_unique` ON `quote_lines` (`quote_id`,`product_id`);--> statement-breakpoint
CREATE INDEX `quote_lines_quote_idx` ON `quote_lines` (`quote_id`,`position`);--> statement-breakpoint
CREATE TABLE `quotes` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`created_by_user_id` text,
	`name` text NOT NULL,
	`reference_number` text,
	`year` integer NOT NULL,
	`sequence` integer NOT NULL,
	`quote_number` text NOT NULL,
	`currency` text NOT NULL,
	`validity_days` integer NOT NULL,
	`expiration_date` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `quotes_number_unique` ON `quotes` (`instance_id`,`year`,`sequence`);--> statement-breakpoint
CREATE INDEX `quotes_list_idx` ON `quotes` (`instance_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `applications` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`client_id` text NOT NULL,
	`client_secret_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `applications_client_id_unique` ON `applications` (`client_id`);--> statement-breakpoint
CREATE TABLE `auth_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`user_id` text NOT NULL,
	`application_id` text NOT NULL,
	`kind` text NOT NULL,
	`token_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`revoked_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `auth_tokens_hash_unique` ON `auth_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `auth_tokens_expiry_idx` ON `auth_tokens` (`expires_at`);--> statement-breakpoint
CREATE TABLE `instances` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`code` text NOT NULL,
	`default_currency` text DEFAULT 'EUR' NOT NULL,
	`quote_validity_days` integer DEFAULT 30 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `instances_code_unique` ON `instances` (`code`);--> statement-breakpoint
CREATE TABLE `service_settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`email` text NOT NULL,
	`first_name` text NOT NULL,
	`last_name` text NOT NULL,
	`locale` text DEFAULT 'en' NOT NULL,
	`roles` text DEFAULT '[]' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `users_instance_idx` ON `users` (`instance_id`);