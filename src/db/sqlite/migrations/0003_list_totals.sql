CREATE TABLE `list_totals` (
	`instance_id` text NOT NULL,
	`list` text NOT NULL,
	`total` integer NOT NULL,
	PRIMARY KEY(`instance_id`, `list`),
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
-- Written by hand: the totals of the unfiltered lists, kept in the transaction that inserts the rows.
CREATE TRIGGER `availability_requests_list_total` AFTER INSERT ON `availability_requests` BEGIN
  INSERT INTO `list_totals` (`instance_id`, `list`, `total`) VALUES (NEW.`instance_id`, 'availability_requests', 1)
    ON CONFLICT (`instance_id`, `list`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
-- Written by hand: the totals of the unfiltered lists, kept in the transaction that inserts the rows.
CREATE TRIGGER `customers_list_total` AFTER INSERT ON `customers` BEGIN
  INSERT INTO `list_totals` (`instance_id`, `list`, `total`) VALUES (NEW.`instance_id`, 'customers', 1)
    ON CONFLICT (`instance_id`, `list`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
-- Written by hand: the totals of the unfiltered lists, kept in the transaction that inserts the rows.
CREATE TRIGGER `quotes_list_total` AFTER INSERT ON `quotes` BEGIN
  INSERT INTO `list_totals` (`instance_id`, `list`, `total`) VALUES (NEW.`instance_id`, 'quotes', 1)
    ON CONFLICT (`instance_id`, `list`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
INSERT INTO `list_totals` (`instance_id`, `list`, `total`)
  SELECT `instance_id`, 'availability_requests', count(*) FROM `availability_requests` GROUP BY `instance_id`;
--> statement-breakpoint
INSERT INTO `list_totals` (`instance_id`, `list`, `total`)
  SELECT `instance_id`, 'customers', count(*) FROM `customers` GROUP BY `instance_id`;
--> statement-breakpoint
INSERT INTO `list_totals` (`instance_id`, `list`, `total`)
  SELECT `instance_id`, 'quotes', count(*) FROM `quotes` GROUP BY `instance_id`;
