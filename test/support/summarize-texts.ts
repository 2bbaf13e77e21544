/** Source texts shared by the summarization tests. */

export const MIGRATION_REPORT = [
  'The database migration moved customer records from the old cluster to the managed service.',
  'Before the database migration started, the team wrote a rollback plan for every table.',
  'The rollback plan was rehearsed twice in staging, and each rollback finished within the agreed window.',
  'During the database migration, replication lag stayed below two seconds.',
  'No rollback was needed, and the database migration closed on schedule.',
  'The cafeteria menu changed on Friday.',
].join(' ');

export const OUTAGE_REVIEW = `# Payment gateway outage review

On 3 March the payment gateway rejected card payments for 47 minutes after a certificate on the gateway load balancer expired. About 12,400 checkout attempts failed, and the support queue tripled within the hour.

The on-call engineer saw the error rate alert at 09:12 but first suspected the card processor, because the processor had reported degraded service the week before. The processor's status page was green. The team spent 20 minutes ruling the processor out.

The expired certificate was found at 09:41 by comparing gateway logs with the load balancer configuration. A renewed certificate was deployed at 09:59, and card payments recovered immediately. Refunds for double charges were issued the same day.

Certificate renewal for the payment gateway was still a manual task in a shared calendar. The calendar reminder went to an engineer who had left the company in January. Nobody else owned the renewal.

Action items:
- Automate certificate renewal for the payment gateway and every load balancer.
- Alert on certificates that expire within 21 days.
- Add a gateway certificate check to the outage runbook, before any processor check.

The office party has moved to Thursday. Parking on the north side will be closed for resurfacing.`;
