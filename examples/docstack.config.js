// An app's configuration module for the stock node: `DOCSTACK_CONFIG=./examples/docstack.config.js
// npm start` (or `docstack start --config …`). Plain JavaScript, no import needed: handlers are
// functions. See docs/server.md#app-code; the types are `AppConfig` from 'docstack/server'.

/** @type {import('docstack/server').AppConfig} */
export default {
  // trigger handlers by name: a class's trigger names one (addTrigger(classObj, { handler: 'invoices.label', … }))
  triggers: {
    'invoices.label': (doc, { params }) => ({ ...doc, label: `${params.prefix ?? 'INV'}-${String(doc.number).padStart(5, '0')}` }),
  },
  // job handlers by name: stack.jobs.define({ name, handler: 'invoices.overdue', schedule, platform: 'server' })
  jobs: {
    'invoices.overdue': async ({ stack }) => ({ open: (await stack.findDocuments('Invoice', { paid: false })).length }),
  },
  // conflict handlers by name: a class whose policy is 'invoices.keepPaid'
  conflicts: {
    'invoices.keepPaid': ({ winner, losers }) => [winner, ...losers].find((doc) => doc.paid === true) ?? winner,
  },
  // the app's own HTTP routes, after the node's own (requireSession: the caller must be logged in)
  routes(app, { requireSession, stack }) {
    app.get('/api/app/invoices/open', requireSession, async (_req, res) => {
      res.json({ open: (await stack().findDocuments('Invoice', { paid: false })).length });
    });
  },
};
