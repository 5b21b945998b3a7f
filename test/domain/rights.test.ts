import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { WaymarkError } from '../../src/domain/errors.ts';
import {
  ACCESS_RIGHTS,
  ACCESS_RIGHT_DISPLAY_NAMES,
  RIGHT_COUNT,
  Right,
  flagsToRights,
  parseRights,
  rightName,
  rightsToFlags,
} from '../../src/domain/rights.ts';

/** The enum names api-facts §5.8 states by index (all but the described ranges 48–61, 69–72, 74, 76). */
const NAMES_FROM_FACTS: Record<number, string> = {
  0: 'AddModifyUser', 1: 'RemoveUser', 2: 'AddModifyRole', 3: 'RemoveRole', 4: 'AddModifyGroup',
  5: 'RemoveGroup', 6: 'ViewSystemConfig', 7: 'AddProcessTemplate', 8: 'CheckinOutProcessTemplate',
  9: 'DeleteDisableProcessTemplate', 10: 'ReleaseProcessTemplate', 11: 'InitiateProcessInstance',
  12: 'SuspendResumeProcessInstance', 13: 'ResendCancelEmail', 14: 'CancelProcessInstance',
  15: 'RollbackProcessInstance', 16: 'ReassignWorkItem', 17: 'CancelWorkItem', 18: 'CreateWorkItem',
  19: 'AddRemoveModifyDelegation', 20: 'AddRemoveModifyReportConfigure', 21: 'ArchiveRestoreProcessInstance',
  22: 'AddRemoveModifySharedCustomAttributes', 23: 'ViewProcessDetails', 24: 'ModifyCustomAttributes',
  25: 'ViewCustomAttributes', 26: 'EnableAdvancedQuery', 27: 'CompleteProcedure', 28: 'SaveRemoveTemporaryFile',
  29: 'AddRemoveApplication', 30: 'ReleasePublishApplication', 31: 'ManagePermissionSettings',
  32: 'AddRemoveApplicationResources', 33: 'CheckInCheckOutApplicationResources',
  34: 'UndoCheckoutApplicationResources', 35: 'AddRemoveModifyGlobalApplicationResources',
  36: 'ViewGlobalApplicationResources', 37: 'EnableInboxViewAccess', 38: 'EnableMessagesAccess',
  39: 'EnableAnnouncementsandSystemNotificaitonAccess', 40: 'EnableAgileReportsAccess',
  41: 'EnableAppBuilderAccess', 42: 'EnableEnterpriseManagerAccess', 43: 'EnableSettingsAccess',
  44: 'SetHomePage', 45: 'ApplyTheme', 46: 'ManageWidgets', 47: 'ManageMenus', 62: 'ManageFeatures',
  63: 'ManagePackages', 64: 'AccessAdminPanel', 65: 'AccessFrontEnd', 66: 'AccessConfigurationArea',
  67: 'AdministerOrganization', 68: 'EndUser', 73: 'PowerEndUser', 75: 'SystemAdministration',
  77: 'CheckInOther', 78: 'AllowUsingSystemAccount', 79: 'AllowEnablingAnonymousAccess',
  80: 'SetDelegationforOthers', 81: 'EnableViewAllTasks', 82: 'EnableViewMyGroupTasks',
  83: 'AllowUpdateProcessData', 84: 'AllowAddModifyRemoveEventServices', 85: 'AllowModifyUserSelfProfile',
  86: 'ViewReportView',
};

function assertWaymarkError(fn: () => unknown, code: string, ...fragments: string[]): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof WaymarkError, `expected a WaymarkError, got ${String(e)}`);
    assert.equal(e.code, code);
    assert.equal(e.status, 400);
    for (const fragment of fragments) assert.ok(e.message.includes(fragment), `"${e.message}" lacks "${fragment}"`);
    return true;
  });
}

describe('the rights table', () => {
  test('has 87 rights, indexes 0..86', () => {
    assert.equal(RIGHT_COUNT, 87);
    assert.equal(ACCESS_RIGHTS.length, 87);
    assert.equal(ACCESS_RIGHT_DISPLAY_NAMES.length, 87);
    assert.equal(Object.keys(Right).length, 87);
  });

  test('uses the enumeration names of api-facts §5.8 at their indexes', () => {
    for (const [index, name] of Object.entries(NAMES_FROM_FACTS)) assert.equal(ACCESS_RIGHTS[Number(index)], name);
  });

  test('chooses PascalCase names for the ranges the facts only describe', () => {
    assert.deepEqual(ACCESS_RIGHTS.slice(48, 52), ['PublishPage', 'EditPage', 'DeletePage', 'ViewPage']);
    assert.deepEqual([69, 70, 71, 72, 74, 76].map((i) => ACCESS_RIGHTS[i]), [
      'ViewReports', 'CreateReports', 'EditReports', 'DeleteReports', 'ShareReports', 'ExportReports',
    ]);
  });

  test('names are PascalCase and unique even ignoring case', () => {
    for (const name of ACCESS_RIGHTS) assert.match(name, /^[A-Z][A-Za-z]+$/);
    assert.equal(new Set(ACCESS_RIGHTS.map((n) => n.toLowerCase())).size, 87);
  });

  test('Right maps every name to its index and cannot be changed', () => {
    assert.equal(Right.CreateWorkItem, 18);
    assert.equal(Right.CancelProcessInstance, 14);
    assert.equal(Right.ViewProcessDetails, 23);
    assert.equal(Right.AddModifyRole, 2);
    ACCESS_RIGHTS.forEach((name, index) => assert.equal(Right[name], index));
    assert.ok(Object.isFrozen(Right));
    assert.ok(Object.isFrozen(ACCESS_RIGHTS));
  });

  test('display names read as a person would', () => {
    assert.equal(ACCESS_RIGHT_DISPLAY_NAMES[0], 'Add/Modify User');
    assert.equal(ACCESS_RIGHT_DISPLAY_NAMES[2], 'Add/Modify Role');
    assert.equal(ACCESS_RIGHT_DISPLAY_NAMES[12], 'Suspend and Resume a Process');
    assert.equal(ACCESS_RIGHT_DISPLAY_NAMES[14], 'Cancel a Process');
    assert.equal(ACCESS_RIGHT_DISPLAY_NAMES[18], 'Create a Task');
    assert.equal(ACCESS_RIGHT_DISPLAY_NAMES[23], 'View Process Details');
    for (const name of ACCESS_RIGHT_DISPLAY_NAMES) assert.ok(name.length > 3 && name.trim() === name);
    assert.equal(new Set(ACCESS_RIGHT_DISPLAY_NAMES).size, 87);
  });

  test('rightName gives the name of an index and refuses others', () => {
    assert.equal(rightName(18), 'CreateWorkItem');
    assert.equal(rightName(0), 'AddModifyUser');
    assert.equal(rightName(86), 'ViewReportView');
    for (const bad of [-1, 87, 1.5, Number.NaN]) assert.throws(() => rightName(bad), RangeError);
  });
});

describe('parseRights', () => {
  test('every name round-trips, in any case', () => {
    ACCESS_RIGHTS.forEach((name, index) => {
      assert.deepEqual(parseRights([name]), [index]);
      assert.deepEqual(parseRights([name.toLowerCase()]), [index]);
      assert.deepEqual(parseRights([name.toUpperCase()]), [index]);
      assert.equal(rightName(parseRights([name])[0]), name);
    });
  });

  test('every index round-trips, as a number and as a string of digits', () => {
    for (let i = 0; i < 87; i++) {
      assert.deepEqual(parseRights([i]), [i]);
      assert.deepEqual(parseRights([String(i)]), [i]);
    }
  });

  test('mixes forms, removes repeats and sorts', () => {
    assert.deepEqual(parseRights([18, 'cancelprocessinstance', '11', 18, ' 2 ', 'CreateWorkItem', '018']), [2, 11, 14, 18]);
    assert.deepEqual(parseRights(['InitiateProcessInstance', 'CancelProcessInstance']), [11, 14]);
    assert.deepEqual(parseRights([]), []);
  });

  test('refuses unknown rights with InvalidRight naming the element', () => {
    const cases: Array<[unknown, string]> = [
      ['__proto__', '"__proto__"'],
      ['constructor', '"constructor"'],
      ['toString', '"toString"'],
      ['hasOwnProperty', '"hasOwnProperty"'],
      [-1, '-1'],
      [87, '87'],
      [1.5, '1.5'],
      ['87', '"87"'],
      ['-1', '"-1"'],
      ['1.5', '"1.5"'],
      ['', '""'],
      ['Create Work Item', '"Create Work Item"'],
      ['CreateWorkItems', '"CreateWorkItems"'],
      [null, 'null'],
      [true, 'true'],
      [Number.NaN, 'NaN'],
      [{}, 'an object'],
      [[18], 'an array'],
    ];
    for (const [element, shown] of cases) {
      assertWaymarkError(() => parseRights(['CreateWorkItem', element]), 'InvalidRight', 'Rights[1]', shown, '0 to 86');
    }
  });

  test('refuses a non-array with InvalidRequest', () => {
    for (const input of ['CreateWorkItem', 18, null, undefined, { 0: 18 }]) {
      assertWaymarkError(() => parseRights(input), 'InvalidRequest', 'array');
    }
  });
});

describe('RightFlags', () => {
  test('are 87 Y/N characters, index 0 first', () => {
    assert.equal(rightsToFlags([]), 'N'.repeat(87));
    const flags = rightsToFlags([0, 18, 86]);
    assert.equal(flags.length, 87);
    assert.equal(flags[0], 'Y');
    assert.equal(flags[1], 'N');
    assert.equal(flags[18], 'Y');
    assert.equal(flags[86], 'Y');
    assert.equal(flags.replaceAll('N', ''), 'YYY');
    assert.equal(rightsToFlags(new Set([2, 2, 3])), 'NNYY' + 'N'.repeat(83));
  });

  test('round-trip any set of rights', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let run = 0; run < 200; run++) {
      const rights = [...new Set(Array.from({ length: Math.floor(random() * 30) }, () => Math.floor(random() * 87)))].sort((a, b) => a - b);
      assert.deepEqual(flagsToRights(rightsToFlags(rights)), rights);
    }
    const all = Array.from({ length: 87 }, (_, i) => i);
    assert.equal(rightsToFlags(all), 'Y'.repeat(87));
    assert.deepEqual(flagsToRights('Y'.repeat(87)), all);
  });

  test('flagsToRights reads Y or y and ignores characters past 87', () => {
    assert.deepEqual(flagsToRights('YNy'), [0, 2]);
    assert.deepEqual(flagsToRights('N'.repeat(87) + 'YYY'), []);
    assert.deepEqual(flagsToRights(''), []);
  });

  test('rightsToFlags refuses an index that is not a right', () => {
    assert.throws(() => rightsToFlags([87]), RangeError);
    assert.throws(() => rightsToFlags([-1]), RangeError);
  });
});
