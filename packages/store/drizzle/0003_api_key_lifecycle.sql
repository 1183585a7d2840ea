ALTER TABLE `api_keys` ADD `origin` text DEFAULT 'created' NOT NULL;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `admin` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `hint` text DEFAULT '' NOT NULL;