import { z } from 'zod';
import { defineTool, functionTool } from './define-tool';
import { success } from './tool-types';

const args = z.object({ plan: z.string().trim().min(1) });

export const updatePlanTool = defineTool({
  definition: functionTool(
    'update_plan',
    [
      'Record your current plan for the task: the whole plan each time, e.g. a numbered list of steps each marked done, in progress or todo.',
      'Call it once you have a plan and again whenever it changes. The user sees every version.',
    ].join(' '),
    {
      plan: {
        type: 'string',
        description: 'The complete current plan as text.',
      },
    },
    ['plan'],
  ),
  args,
  execute({ plan }, ctx) {
    // Seed 001 §11.5 plan types: the first entry of a task is its initial plan.
    const planType = ctx.planning.count() === 0 ? 'initial' : 'update';
    const entry = ctx.planning.add(planType, plan);
    return success(`plan saved (entry ${entry.id}, ${planType})`);
  },
});
