CREATE TABLE `prepared_summaries` (
	`agent_id` text PRIMARY KEY NOT NULL,
	`base_compaction_id` text,
	`compaction_key` text NOT NULL,
	`cutoff_message_id` text NOT NULL,
	`summary_text` text,
	`form` text NOT NULL,
	`tokens_at` integer NOT NULL,
	`prepared_at` integer NOT NULL
);
