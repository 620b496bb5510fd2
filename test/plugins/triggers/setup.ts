/**
 * Shared set-up of the trigger tests: a memory stack with the browser preset, the triggers
 * plugin and a test plugin registering a few handlers (written as a third party would).
 */
import { Class, definePlugin, type ClientStack, type Doc, type PluginEntry } from '../../../index.js';
import { browser } from '../../../plugins.config.js';
import { registerTriggerHandler, triggersPlugin, type TriggerFailedEvent, type TriggersOptions } from '../../../plugins/triggers/index.js';
import { memoryStack } from '../../helpers/stack.js';

/**
 * The browser preset without the named plugins (and those requiring them), whether or not the
 * preset lists them: the tests add the triggers plugin themselves, and fake `stack.jobs`.
 */
export function presetWithout(...names: string[]): PluginEntry[] {
  return browser.filter((entry) => {
    const plugin = Array.isArray(entry) ? entry[0] : entry;
    return !plugin || !(names.includes(plugin.name) || (plugin.requires ?? []).some((r: string) => names.includes(r)));
  });
}

export const preset = presetWithout('triggers');

export const taskSchema = {
  title: { type: 'string', mandatory: true, maxLength: 40 },
  priority: { type: 'integer', min: 1, max: 5, defaultValue: 3 },
  note: { type: 'string' },
};

/** The test handlers: each records `<trigger name>:<op>` in `calls` when it runs. */
export function testHandlers(calls: string[]) {
  return definePlugin({
    name: 'trigger-test-handlers',
    requires: ['triggers'],
    setup(kernel) {
      const log = (name: string, op: string) => calls.push(`${name}:${op}`);
      registerTriggerHandler(kernel, 'test.log', (_doc, c) => void log(c.trigger.name, c.op));
      /** sets the trigger's params as attributes (changing the draft) */
      registerTriggerHandler(kernel, 'test.set', (doc, c) => {
        log(c.trigger.name, c.op);
        return { ...doc, ...c.params };
      });
      /** appends params.suffix to the title, in place (returns nothing) */
      registerTriggerHandler(kernel, 'test.suffix', (doc, c) => {
        log(c.trigger.name, c.op);
        doc.title = `${String(doc.title)}${String(c.params.suffix)}`;
      });
      registerTriggerHandler(kernel, 'test.refuse', (_doc, c) => {
        log(c.trigger.name, c.op);
        throw new Error(String(c.params.message ?? 'no'));
      });
      /** logs the write in Audit; `depth` is the depth of the write that started the trigger */
      registerTriggerHandler(kernel, 'test.audit', async (doc, c) => {
        log(c.trigger.name, c.op);
        await c.write.createDoc({ '~class': 'Audit', docId: doc._id, op: c.op, title: String(doc.title), depth: c.depth });
      });
      /** writes one more document of the same class: a trigger that starts itself forever */
      registerTriggerHandler(kernel, 'test.loop', async (doc, c) => {
        await c.write.createDoc({ '~class': doc['~class'], title: `loop ${c.depth + 1}` });
      });
    },
  });
}

export interface TriggerTestStack {
  stack: ClientStack;
  tasks: Class;
  calls: string[];
  failures: TriggerFailedEvent[];
  /** Task documents stored, inactive ones included */
  count(className?: string): Promise<number>;
}

/** A stack with triggers, the test handlers, a `Task` class and an `Audit` class. */
export async function triggerStack(options: { base?: PluginEntry[]; extra?: PluginEntry[]; triggers?: TriggersOptions } = {}): Promise<TriggerTestStack> {
  const calls: string[] = [];
  const triggers: PluginEntry = options.triggers ? [triggersPlugin, options.triggers] : triggersPlugin;
  const stack = await memoryStack({ plugins: [...(options.base ?? preset), triggers, testHandlers(calls), ...(options.extra ?? [])] });
  const failures: TriggerFailedEvent[] = [];
  stack.on('trigger:failed', (event: TriggerFailedEvent) => failures.push(event));
  const tasks = await Class.create(stack, 'Task', 'class', '', taskSchema);
  await Class.create(stack, 'Audit', 'class', '', {
    docId: { type: 'string' },
    op: { type: 'string' },
    title: { type: 'string' },
    depth: { type: 'integer' },
  });
  const count = async (className = 'Task') => (await stack.findDocuments(className, undefined, { includeInactive: true })).length;
  return { stack, tasks, calls, failures, count };
}

export const titles = (docs: Doc[]) => docs.map((d) => d.title);
