/**
 * A rendered transaction as JSON text, the same text `JSON.stringify` gives it, written by hand for
 * the PATCH's answer: serializing the object walked its 30-odd keys and values one by one and took
 * about 23,000 of a lone connection's 274,000 instructions a PATCH (docs/benchmarks.md,
 * "Reference-server PATCH").
 */
import { PLAIN_ASCII, PLAIN_TEXT, stringified, type JsonText } from './json-text.js';
import type { RenderedTransaction } from './render.js';

/**
 * `JSON.stringify(transaction)`. The keys are written in the order `renderRows` gives them (a test
 * holds the two to the same text). Every string is written as it is once one test finds none that
 * JSON would escape, and both amounts are finite; otherwise the whole object takes `JSON.stringify`.
 */
export function transactionJson(transaction: RenderedTransaction): JsonText {
  const { account, category, merchant, tags, notes, external_id, source } = transaction;
  let strings =
    transaction.id +
    transaction.date +
    transaction.amount +
    transaction.currency +
    transaction.name +
    (notes ?? '') +
    (external_id ?? '') +
    (source ?? '') +
    transaction.classification +
    account.id +
    account.name +
    account.account_type +
    transaction.created_at +
    transaction.updated_at;
  if (category) strings += category.id + category.name + category.color + category.icon;
  if (merchant) strings += merchant.id + merchant.name;
  for (const tag of tags) strings += tag.id + tag.name + tag.color;
  // An answer in ASCII (a dollar amount, plain names) is found plain and ASCII by this one test.
  const ascii = PLAIN_ASCII.test(strings);
  if (
    !(ascii || PLAIN_TEXT.test(strings)) ||
    !Number.isFinite(transaction.amount_cents) ||
    !Number.isFinite(transaction.signed_amount_cents)
  )
    return stringified(transaction);

  let text =
    `{"id":"${transaction.id}","date":"${transaction.date}","amount":"${transaction.amount}",` +
    `"amount_cents":${transaction.amount_cents},"signed_amount_cents":${transaction.signed_amount_cents},` +
    `"currency":"${transaction.currency}","name":"${transaction.name}",` +
    `"notes":${quotedOrNull(notes)},"external_id":${quotedOrNull(external_id)},"source":${quotedOrNull(source)},` +
    `"classification":"${transaction.classification}",` +
    `"account":{"id":"${account.id}","name":"${account.name}","account_type":"${account.account_type}"},"category":`;
  text += category
    ? `{"id":"${category.id}","name":"${category.name}","color":"${category.color}","icon":"${category.icon}"}`
    : 'null';
  text += merchant
    ? `,"merchant":{"id":"${merchant.id}","name":"${merchant.name}"},"tags":[`
    : ',"merchant":null,"tags":[';
  for (let i = 0; i < tags.length; i++) {
    const tag = tags[i]!;
    text += `${i === 0 ? '' : ','}{"id":"${tag.id}","name":"${tag.name}","color":"${tag.color}"}`;
  }
  text += `],"transfer":null,"created_at":"${transaction.created_at}","updated_at":"${transaction.updated_at}"}`;
  return { text, ascii };
}

/** A string already found plain, between quotes, or `null`. */
function quotedOrNull(value: string | null): string {
  return value === null ? 'null' : `"${value}"`;
}
