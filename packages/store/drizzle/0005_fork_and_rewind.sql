ALTER TABLE `agents` ADD `fork_source_agent_id` text;--> statement-breakpoint
ALTER TABLE `threads` ADD `forked_from_thread_id` text;--> statement-breakpoint
ALTER TABLE `threads` ADD `rewound_to_thread_id` text;