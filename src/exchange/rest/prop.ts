/** Trading-credit packages (spec 4.6). Closing an account needs its `sub-account-client-id`. */
import type { ClosedPropAccount, Paged, PropHistoryEntry, PropPackage } from '../../core/types/index.js';
import { parseClosedPropAccount, parsePropHistory, parsePropPackage } from '../parse/prop.js';
import type { HttpCore } from './http.js';
import { guardWrite } from './write.js';
import * as v from './validate.js';

/** GET /v1/prop/user/packages/history */
export async function getPropHistory(http: HttpCore): Promise<Paged<PropHistoryEntry>> {
  const res = await http.request({ method: 'GET', path: '/v1/prop/user/packages/history', auth: true, retry: true, envelope: 'required' });
  return parsePropHistory(res.payload, res.envelope?.resultInfo);
}

/** GET /v1/prop/packages/{id} */
export async function getPropPackage(http: HttpCore, id: number): Promise<PropPackage> {
  const pid = v.positiveInt(id, 'id');
  const res = await http.request({ method: 'GET', path: `/v1/prop/packages/${pid}`, auth: true, retry: true, envelope: 'required' });
  return parsePropPackage(res.payload);
}

/** DELETE /v1/prop/user/packages with header `sub-account-client-id`. Never retried. */
export async function closePropAccount(http: HttpCore, subAccountId: string): Promise<ClosedPropAccount> {
  const id = v.headerId(subAccountId, 'subAccountId');
  return guardWrite('closePropAccount', undefined, async () => {
    const res = await http.request({
      method: 'DELETE',
      path: '/v1/prop/user/packages',
      headers: { 'sub-account-client-id': id },
      auth: true,
      retry: false,
      envelope: 'required',
    });
    return parseClosedPropAccount(res.payload);
  });
}
