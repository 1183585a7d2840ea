CREATE TABLE `blobs` (
	`tenant_id` text NOT NULL,
	`hash` text NOT NULL,
	`size` integer NOT NULL,
	`bytes` blob,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `hash`)
);
--> statement-breakpoint
CREATE TABLE `file_snapshots` (
	`id` text PRIMARY KEY NOT NULL,
	`thread_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`message_id` text NOT NULL,
	`seq` integer NOT NULL,
	`call_id` text NOT NULL,
	`path` text NOT NULL,
	`phase` text NOT NULL,
	`hash` text,
	`size` integer,
	`too_large` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `file_snapshots_thread_path_idx` ON `file_snapshots` (`thread_id`,`path`);