import "server-only";
import { createAccessControl } from "better-auth/plugins/access";
import { adminAc, defaultStatements } from "better-auth/plugins/organization/access";

// The schema's Role enum: viewers read, approvers also decide and share, admins also manage the organization.
const statements = { ...defaultStatements, run: ["read", "decide", "share"] } as const;
export const organizationAccess = createAccessControl(statements);

export const organizationRoles = {
  viewer: organizationAccess.newRole({ run: ["read"] }),
  approver: organizationAccess.newRole({ run: ["read", "decide", "share"] }),
  admin: organizationAccess.newRole({ ...adminAc.statements, run: ["read", "decide", "share"] }),
};
