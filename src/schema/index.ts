import { builder } from './builder.js';
import { withPlainFields } from './plain-fields.js';
import './authentication.js';
import './availability-options.js';
import './availability-requests.js';
import './customers.js';
import './orders.js';
import './order-cancellation.js';
import './price-plans.js';
import './quotes.js';
import './sources.js';

/** The executable GraphQL schema. */
export const schema = withPlainFields(builder.toSchema({ sortSchema: true }));
