CREATE TABLE `approval_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`thread_id` text,
	`tool_name` text NOT NULL,
	`pattern` text NOT NULL,
	`from_call` text,
	`created_at` integer NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE INDEX `approval_rules_tenant_idx` ON `approval_rules` (`tenant_id`,`tool_name`);--> statement-breakpoint
ALTER TABLE `agents` ADD `fork_source_agent_id` text;--> statement-breakpoint
ALTER TABLE `threads` ADD `forked_from_thread_id` text;--> statement-breakpoint
ALTER TABLE `threads` ADD `rewound_to_thread_id` text;