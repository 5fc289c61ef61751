DROP INDEX `gathering_tasks_claim_idx`;--> statement-breakpoint
CREATE INDEX `gathering_tasks_claim_idx` ON `gathering_tasks` (`status`,`available_at`,`id`);