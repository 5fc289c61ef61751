import { customers, orders } from './schema/index.js';

/** An order's head as its records take it (`OrderRecord` without lines): the order row, its customer's id and name. */
export const orderHeadColumns = { order: orders, customer: { id: customers.id, name: customers.name } };
