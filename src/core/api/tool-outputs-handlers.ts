import type { WorkbenchHandlers } from '../../shared/api/workbench-api';
import { ToolOutputStore } from '../store/tool-output-store';
import type { ServiceContext } from './service-context';

export function toolOutputsHandlers(
  ctx: ServiceContext,
): Pick<WorkbenchHandlers, 'readToolOutput'> {
  return {
    // The ref is checked against its alphabet (contract and store) before it names a file.
    readToolOutput: async ({ uuid, ref, offset, limit }) => {
      const outputs = new ToolOutputStore(ctx.store.readTask(uuid).dir);
      return { ref, offset, ...outputs.readLines(ref, offset, limit) };
    },
  };
}
