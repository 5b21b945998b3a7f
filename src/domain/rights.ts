/**
 * Access rights: the WFAccessRights enumeration, indexes 0–86 (api-facts §5.8, WIRE.md §Access rights).
 *
 * Names 0–47, 62–68, 73 and 75–86 (except 76) are the enumeration's own. Public material describes
 * indexes 48–61 only as "page/content publish/edit/delete/view rights" and 69–72, 74, 76 only as
 * "report rights"; for those Waymark chose these names:
 *   48 PublishPage, 49 EditPage, 50 DeletePage, 51 ViewPage,
 *   52 PublishContent, 53 EditContent, 54 DeleteContent, 55 ViewContent,
 *   56 EditPageTemplate, 57 DeletePageTemplate, 58 ViewPageTemplate,
 *   59 EditContentTemplate, 60 DeleteContentTemplate, 61 ViewContentTemplate,
 *   69 ViewReports, 70 CreateReports, 71 EditReports, 72 DeleteReports, 74 ShareReports, 76 ExportReports.
 * The display names are Waymark's own wording.
 */
import { WaymarkError } from './errors.ts';

/** Every right's index by its enumeration name: `Right.CreateWorkItem === 18`. */
export const Right = Object.freeze({
  AddModifyUser: 0,
  RemoveUser: 1,
  AddModifyRole: 2,
  RemoveRole: 3,
  AddModifyGroup: 4,
  RemoveGroup: 5,
  ViewSystemConfig: 6,
  AddProcessTemplate: 7,
  CheckinOutProcessTemplate: 8,
  DeleteDisableProcessTemplate: 9,
  ReleaseProcessTemplate: 10,
  InitiateProcessInstance: 11,
  SuspendResumeProcessInstance: 12,
  ResendCancelEmail: 13,
  CancelProcessInstance: 14,
  RollbackProcessInstance: 15,
  ReassignWorkItem: 16,
  CancelWorkItem: 17,
  CreateWorkItem: 18,
  AddRemoveModifyDelegation: 19,
  AddRemoveModifyReportConfigure: 20,
  ArchiveRestoreProcessInstance: 21,
  AddRemoveModifySharedCustomAttributes: 22,
  ViewProcessDetails: 23,
  ModifyCustomAttributes: 24,
  ViewCustomAttributes: 25,
  EnableAdvancedQuery: 26,
  CompleteProcedure: 27,
  SaveRemoveTemporaryFile: 28,
  AddRemoveApplication: 29,
  ReleasePublishApplication: 30,
  ManagePermissionSettings: 31,
  AddRemoveApplicationResources: 32,
  CheckInCheckOutApplicationResources: 33,
  UndoCheckoutApplicationResources: 34,
  AddRemoveModifyGlobalApplicationResources: 35,
  ViewGlobalApplicationResources: 36,
  EnableInboxViewAccess: 37,
  EnableMessagesAccess: 38,
  EnableAnnouncementsandSystemNotificaitonAccess: 39,
  EnableAgileReportsAccess: 40,
  EnableAppBuilderAccess: 41,
  EnableEnterpriseManagerAccess: 42,
  EnableSettingsAccess: 43,
  SetHomePage: 44,
  ApplyTheme: 45,
  ManageWidgets: 46,
  ManageMenus: 47,
  PublishPage: 48,
  EditPage: 49,
  DeletePage: 50,
  ViewPage: 51,
  PublishContent: 52,
  EditContent: 53,
  DeleteContent: 54,
  ViewContent: 55,
  EditPageTemplate: 56,
  DeletePageTemplate: 57,
  ViewPageTemplate: 58,
  EditContentTemplate: 59,
  DeleteContentTemplate: 60,
  ViewContentTemplate: 61,
  ManageFeatures: 62,
  ManagePackages: 63,
  AccessAdminPanel: 64,
  AccessFrontEnd: 65,
  AccessConfigurationArea: 66,
  AdministerOrganization: 67,
  EndUser: 68,
  ViewReports: 69,
  CreateReports: 70,
  EditReports: 71,
  DeleteReports: 72,
  PowerEndUser: 73,
  ShareReports: 74,
  SystemAdministration: 75,
  ExportReports: 76,
  CheckInOther: 77,
  AllowUsingSystemAccount: 78,
  AllowEnablingAnonymousAccess: 79,
  SetDelegationforOthers: 80,
  EnableViewAllTasks: 81,
  EnableViewMyGroupTasks: 82,
  AllowUpdateProcessData: 83,
  AllowAddModifyRemoveEventServices: 84,
  AllowModifyUserSelfProfile: 85,
  ViewReportView: 86,
} as const);

/** An enumeration name of WFAccessRights. */
export type RightName = keyof typeof Right;

/** How many rights there are (indexes 0..86); also the length of RightFlags. */
export const RIGHT_COUNT = 87;

const DISPLAY_NAMES: Readonly<Record<RightName, string>> = {
  AddModifyUser: 'Add/Modify User',
  RemoveUser: 'Remove User',
  AddModifyRole: 'Add/Modify Role',
  RemoveRole: 'Remove Role',
  AddModifyGroup: 'Add/Modify Group',
  RemoveGroup: 'Remove Group',
  ViewSystemConfig: 'View/Modify System Configuration',
  AddProcessTemplate: 'Add a Process Template',
  CheckinOutProcessTemplate: 'Check In/Out a Process Template',
  DeleteDisableProcessTemplate: 'Delete/Disable a Process Template',
  ReleaseProcessTemplate: 'Release a Process Template',
  InitiateProcessInstance: 'Start a Process',
  SuspendResumeProcessInstance: 'Suspend and Resume a Process',
  ResendCancelEmail: 'Resend/Cancel an Email Notification',
  CancelProcessInstance: 'Cancel a Process',
  RollbackProcessInstance: 'Roll Back a Process',
  ReassignWorkItem: 'Reassign a Task',
  CancelWorkItem: 'Cancel a Task',
  CreateWorkItem: 'Create a Task',
  AddRemoveModifyDelegation: 'Add/Remove/Modify Delegations',
  AddRemoveModifyReportConfigure: 'Add/Remove/Modify Report Configuration',
  ArchiveRestoreProcessInstance: 'Archive/Restore Processes',
  AddRemoveModifySharedCustomAttributes: 'Add/Remove/Modify Shared Custom Attributes',
  ViewProcessDetails: 'View Process Details',
  ModifyCustomAttributes: 'Modify Custom Attributes',
  ViewCustomAttributes: 'View Custom Attributes',
  EnableAdvancedQuery: 'Run Advanced Queries',
  CompleteProcedure: 'Complete an Automatic Work Item',
  SaveRemoveTemporaryFile: 'Save/Remove Temporary Files',
  AddRemoveApplication: 'Add/Remove Applications',
  ReleasePublishApplication: 'Release/Publish Applications',
  ManagePermissionSettings: 'Manage Permission Settings',
  AddRemoveApplicationResources: 'Add/Remove Application Resources',
  CheckInCheckOutApplicationResources: 'Check In/Out Application Resources',
  UndoCheckoutApplicationResources: 'Undo the Checkout of Application Resources',
  AddRemoveModifyGlobalApplicationResources: 'Add/Remove/Modify Global Application Resources',
  ViewGlobalApplicationResources: 'View Global Application Resources',
  EnableInboxViewAccess: 'Access the Inbox',
  EnableMessagesAccess: 'Access Messages',
  EnableAnnouncementsandSystemNotificaitonAccess: 'Access Announcements and System Notifications',
  EnableAgileReportsAccess: 'Access Reports',
  EnableAppBuilderAccess: 'Access the App Builder',
  EnableEnterpriseManagerAccess: 'Access the Enterprise Manager',
  EnableSettingsAccess: 'Access Settings',
  SetHomePage: 'Set the Home Page',
  ApplyTheme: 'Apply a Theme',
  ManageWidgets: 'Manage Widgets',
  ManageMenus: 'Manage Menus',
  PublishPage: 'Publish a Page',
  EditPage: 'Edit a Page',
  DeletePage: 'Delete a Page',
  ViewPage: 'View a Page',
  PublishContent: 'Publish Content',
  EditContent: 'Edit Content',
  DeleteContent: 'Delete Content',
  ViewContent: 'View Content',
  EditPageTemplate: 'Edit a Page Template',
  DeletePageTemplate: 'Delete a Page Template',
  ViewPageTemplate: 'View a Page Template',
  EditContentTemplate: 'Edit a Content Template',
  DeleteContentTemplate: 'Delete a Content Template',
  ViewContentTemplate: 'View a Content Template',
  ManageFeatures: 'Manage Features',
  ManagePackages: 'Manage Packages',
  AccessAdminPanel: 'Access the Admin Panel',
  AccessFrontEnd: 'Access the Front End',
  AccessConfigurationArea: 'Access the Configuration Area',
  AdministerOrganization: 'Administer the Organization',
  EndUser: 'End User',
  ViewReports: 'View Reports',
  CreateReports: 'Create Reports',
  EditReports: 'Edit Reports',
  DeleteReports: 'Delete Reports',
  PowerEndUser: 'Power End User',
  ShareReports: 'Share Reports',
  SystemAdministration: 'System Administration',
  ExportReports: 'Export Reports',
  CheckInOther: "Check In Others' Items",
  AllowUsingSystemAccount: 'Use the System Account',
  AllowEnablingAnonymousAccess: 'Enable Anonymous Access',
  SetDelegationforOthers: 'Set Delegations for Others',
  EnableViewAllTasks: 'View All Tasks',
  EnableViewMyGroupTasks: "View My Groups' Tasks",
  AllowUpdateProcessData: 'Update Process Data',
  AllowAddModifyRemoveEventServices: 'Add/Modify/Remove Event Services',
  AllowModifyUserSelfProfile: 'Modify Own User Profile',
  ViewReportView: 'View Report Views',
};

/** The enumeration names, index 0 first (`ACCESS_RIGHTS[18] === 'CreateWorkItem'`). */
export const ACCESS_RIGHTS: readonly RightName[] = Object.freeze(
  (Object.keys(Right) as RightName[]).sort((a, b) => Right[a] - Right[b]),
);

/** Names a person reads (what GetAccessRightNames answers), index 0 first. */
export const ACCESS_RIGHT_DISPLAY_NAMES: readonly string[] = Object.freeze(ACCESS_RIGHTS.map((n) => DISPLAY_NAMES[n]));

const INDEX_BY_LOWER_NAME: ReadonlyMap<string, number> = new Map(
  ACCESS_RIGHTS.map((name, index) => [name.toLowerCase(), index]),
);

/** True for an integer index 0..86. */
export function isRightIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < RIGHT_COUNT;
}

/** The enumeration name of a right index; a RangeError for anything that is not 0..86. */
export function rightName(index: number): RightName {
  return ACCESS_RIGHTS[assertRightIndex(index)];
}

function assertRightIndex(index: number): number {
  if (!isRightIndex(index)) throw new RangeError(`${index} is not an access right index (0-${RIGHT_COUNT - 1}).`);
  return index;
}

/**
 * The rights named in a request (`Rights` of AddRole/UpdateRole): an array whose elements are
 * indexes 0..86, strings of digits, or enumeration names in any case, mixed as wished.
 * Answers the distinct indexes in ascending order.
 * Throws WaymarkError `InvalidRequest` for a non-array and `InvalidRight` for an unknown element.
 */
export function parseRights(input: unknown): number[] {
  if (!Array.isArray(input)) {
    throw new WaymarkError('InvalidRequest', `Rights must be an array of access right indexes or names, not ${describe(input)}.`);
  }
  const indexes = new Set<number>();
  input.forEach((element, position) => indexes.add(parseOneRight(element, position)));
  return [...indexes].sort((a, b) => a - b);
}

function parseOneRight(element: unknown, position: number): number {
  const index = rightIndexOf(element);
  if (index === null) {
    throw new WaymarkError(
      'InvalidRight',
      `Rights[${position}] (${describe(element)}) is not an access right: ` +
        `use an index from 0 to ${RIGHT_COUNT - 1} or a WFAccessRights name such as "CreateWorkItem".`,
    );
  }
  return index;
}

function rightIndexOf(element: unknown): number | null {
  if (typeof element === 'number') return isRightIndex(element) ? element : null;
  if (typeof element !== 'string') return null;
  const text = element.trim();
  if (/^\d{1,3}$/.test(text)) {
    const index = Number(text);
    return isRightIndex(index) ? index : null;
  }
  return INDEX_BY_LOWER_NAME.get(text.toLowerCase()) ?? null;
}

/** A short, safe rendering of a value for an error sentence. */
function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}

/** RightFlags: 87 characters, `Y` where the right is granted and `N` elsewhere, index 0 first. */
export function rightsToFlags(rights: Iterable<number>): string {
  const flags: string[] = new Array(RIGHT_COUNT).fill('N');
  for (const index of rights) flags[assertRightIndex(index)] = 'Y';
  return flags.join('');
}

/** The granted indexes of a RightFlags string (`Y` or `y` grants; characters past 87 are ignored). */
export function flagsToRights(flags: string): number[] {
  const rights: number[] = [];
  const length = Math.min(flags.length, RIGHT_COUNT);
  for (let i = 0; i < length; i++) {
    if (flags[i] === 'Y' || flags[i] === 'y') rights.push(i);
  }
  return rights;
}
