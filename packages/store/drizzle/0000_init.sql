CREATE TABLE `agent_state` (
	`agent_id` text PRIMARY KEY NOT NULL,
	`plan` text,
	`todos` text NOT NULL,
	`recent_files` text NOT NULL,
	`pending_approvals` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `agents` (
	`id` text PRIMARY KEY NOT NULL,
	`thread_id` text NOT NULL,
	`parent_agent_id` text,
	`name` text NOT NULL,
	`inherit` text DEFAULT 'fresh' NOT NULL,
	`fork_message_id` text,
	`fork_compaction_id` text,
	`brief` text,
	`spawn_call_id` text,
	`status` text DEFAULT 'idle' NOT NULL,
	`fence` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `agents_thread_idx` ON `agents` (`thread_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `agents_parent_idx` ON `agents` (`parent_agent_id`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_token_hash_idx` ON `api_keys` (`token_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_tenant_idx` ON `api_keys` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `compactions` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`cutoff_message_id` text,
	`cutoff_index` integer NOT NULL,
	`summary_message` text NOT NULL,
	`pinned_message` text,
	`includes_prefix` integer DEFAULT false NOT NULL,
	`history_file` text,
	`strategy` text NOT NULL,
	`trigger` text NOT NULL,
	`tokens_before` integer NOT NULL,
	`tokens_after` integer NOT NULL,
	`restored` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `compactions_agent_created_idx` ON `compactions` (`agent_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `events` (
	`thread_id` text NOT NULL,
	`seq` integer NOT NULL,
	`agent_id` text,
	`run_id` text,
	`type` text NOT NULL,
	`data` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`thread_id`, `seq`)
);
--> statement-breakpoint
CREATE TABLE `messages` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`seq` integer NOT NULL,
	`role` text NOT NULL,
	`content` text,
	`name` text,
	`tool_calls` text,
	`tool_call_id` text,
	`tool_status` text,
	`usage` text,
	`provider_state` text,
	`token_count` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `messages_agent_seq_idx` ON `messages` (`agent_id`,`seq`);--> statement-breakpoint
CREATE INDEX `messages_agent_tool_call_idx` ON `messages` (`agent_id`,`tool_call_id`);--> statement-breakpoint
CREATE TABLE `runs` (
	`id` text PRIMARY KEY NOT NULL,
	`thread_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`kind` text NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`error` text,
	`parent_run_id` text,
	`job_id` text,
	`input` text,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `runs_thread_created_idx` ON `runs` (`thread_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `runs_thread_status_idx` ON `runs` (`thread_id`,`status`);--> statement-breakpoint
CREATE INDEX `runs_parent_idx` ON `runs` (`parent_run_id`);--> statement-breakpoint
CREATE TABLE `threads` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`title` text NOT NULL,
	`workspace_dir` text NOT NULL,
	`model_profile` text NOT NULL,
	`status` text DEFAULT 'idle' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `threads_tenant_created_idx` ON `threads` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `tool_runs` (
	`call_id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`name` text NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `tool_runs_agent_idx` ON `tool_runs` (`agent_id`);