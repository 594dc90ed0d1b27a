/**
 * A tour of @finsync/provider against the sandbox provider, over real HTTP on 127.0.0.1.
 * Set LUNCHFLOW_API_KEY (and optionally LUNCHFLOW_BASE_URL) to run the same tour against the real
 * provider instead; the key is never printed.
 */
import { ProviderClient, type ProviderLogger } from '@finsync/provider';
import { SandboxProvider, startSandboxServer } from '@finsync/provider/sandbox';

const realKey = process.env.LUNCHFLOW_API_KEY;
const logger: ProviderLogger = { warn: (message, fields) => console.warn(`! ${message}`, fields ?? '') };

async function main(): Promise<void> {
  const today = new Date().toISOString().slice(0, 10);
  const sandbox = realKey ? undefined : new SandboxProvider({ seed: 42, today });
  const server = sandbox ? await startSandboxServer(sandbox) : undefined;
  const client = new ProviderClient({
    apiKey: realKey ?? 'sandbox-key',
    ...(server ? { baseUrl: server.baseUrl, rateLimit: false as const } : {}),
    // The real provider's address, for the real key only: one exported for the CLI (a proxy) must
    // not send the sandbox's tour elsewhere.
    ...(realKey && process.env.LUNCHFLOW_BASE_URL ? { baseUrl: process.env.LUNCHFLOW_BASE_URL } : {}),
    logger,
  });
  console.log(server ? `Sandbox provider at ${server.baseUrl}` : `Provider at ${client.baseUrl}`);

  try {
    const accounts = await client.listAccounts();
    console.log(`\n${accounts.length} accounts:`);
    for (const account of accounts) {
      const active = account.status === null || account.status === 'ACTIVE';
      const balance = active ? await client.getBalance(account.id) : undefined;
      console.log(
        `  ${account.id.padEnd(6)} ${account.name.padEnd(20)} ${(account.status ?? '-').padEnd(12)} ` +
          (balance ? `${balance.amount} ${balance.currency}` : '(not fetched)'),
      );
    }

    const first = accounts.find((a) => a.status === 'ACTIVE');
    if (!first) return;
    const from = new Date(Date.now() - 60 * 86_400_000).toISOString().slice(0, 10);
    console.log(`\nTransactions of ${first.name} since ${from}, streamed window by window:`);
    let count = 0;
    let pending = 0;
    for await (const page of client
      .listTransactions(first.id, { from, includePending: true, windowDays: 30 })
      .pages()) {
      console.log(`  window ${page.from} … ${page.to}: ${page.transactions.length} rows`);
      for (const tx of page.transactions) {
        count += 1;
        if (tx.isPending) pending += 1;
        if (count <= 5)
          console.log(
            `    ${tx.date} ${tx.amount.padStart(10)} ${tx.currency ?? ''} ${tx.merchant ?? '(no merchant)'}${tx.isPending ? ' [pending]' : ''}`,
          );
      }
    }
    console.log(`  … ${count} transactions, ${pending} pending.`);

    const holdings = await client.getHoldings(
      accounts.find((a) => a.provider === 'snaptrade')?.id ?? first.id,
    );
    console.log(
      holdings.supported
        ? `\nHoldings: ${holdings.holdings.length} positions worth ${holdings.totalValue} ${holdings.currency}`
        : `\nHoldings: not supported (${holdings.status})`,
    );
  } finally {
    await server?.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
  process.exitCode = 1;
});
