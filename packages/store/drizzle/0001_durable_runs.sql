CREATE TABLE `approvals` (
	`agent_id` text NOT NULL,
	`call_id` text NOT NULL,
	`thread_id` text NOT NULL,
	`message_id` text NOT NULL,
	`tool_name` text NOT NULL,
	`arguments` text NOT NULL,
	`requested_at` integer NOT NULL,
	`decision` text,
	`reason` text,
	`decided_at` integer,
	PRIMARY KEY(`agent_id`, `call_id`)
);
--> statement-breakpoint
CREATE INDEX `approvals_thread_idx` ON `approvals` (`thread_id`,`requested_at`);--> statement-breakpoint
CREATE INDEX `approvals_call_idx` ON `approvals` (`call_id`);--> statement-breakpoint
CREATE TABLE `event_heads` (
	`thread_id` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL
);
--> statement-breakpoint
-- Every thread's event head, so the next seq is one counter update instead of max(seq) over the log.
INSERT INTO `event_heads` (`thread_id`, `seq`) SELECT `thread_id`, max(`seq`) FROM `events` GROUP BY `thread_id`;--> statement-breakpoint
-- Pending approvals move from agent_state's JSON list to their own rows, scoped by agent.
INSERT OR IGNORE INTO `approvals` (`agent_id`, `call_id`, `thread_id`, `message_id`, `tool_name`, `arguments`, `requested_at`, `decision`, `reason`, `decided_at`)
  SELECT s.`agent_id`, json_extract(j.value, '$.callId'), a.`thread_id`, json_extract(j.value, '$.messageId'),
    json_extract(j.value, '$.toolName'), json_extract(j.value, '$.arguments'), json_extract(j.value, '$.requestedAt'),
    json_extract(j.value, '$.decision'), json_extract(j.value, '$.reason'),
    CASE WHEN json_extract(j.value, '$.decision') IS NULL THEN NULL ELSE s.`updated_at` END
  FROM `agent_state` s JOIN `agents` a ON a.`id` = s.`agent_id`, json_each(s.`pending_approvals`) j;--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_tool_runs` (
	`agent_id` text NOT NULL,
	`call_id` text NOT NULL,
	`name` text NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	PRIMARY KEY(`agent_id`, `call_id`)
);
--> statement-breakpoint
INSERT INTO `__new_tool_runs`("agent_id", "call_id", "name", "started_at", "finished_at") SELECT "agent_id", "call_id", "name", "started_at", "finished_at" FROM `tool_runs`;--> statement-breakpoint
DROP TABLE `tool_runs`;--> statement-breakpoint
ALTER TABLE `__new_tool_runs` RENAME TO `tool_runs`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `runs_status_idx` ON `runs` (`status`);--> statement-breakpoint
ALTER TABLE `agent_state` DROP COLUMN `pending_approvals`;