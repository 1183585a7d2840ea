ALTER TABLE `compactions` ADD `ledger` text;--> statement-breakpoint
ALTER TABLE `compactions` ADD `shrunk` text;