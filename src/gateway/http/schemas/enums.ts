// The configuration enums, by their proto names. UNSPECIFIED is never written. On a create it is
// accepted and means the default, as an absent field does (the bucket's default for a stream, the
// star's for a bucket); on a reconfiguration it is refused: omit the field to leave it unchanged.
import { Type } from "typebox";

export const Class = Type.Enum(["CLASS_STANDARD", "CLASS_EXPRESS"], {
  $id: "Class",
  description: "A stream's storage class.",
  examples: ["CLASS_EXPRESS"],
});

export const ProducerPolicy = Type.Enum(["PRODUCER_POLICY_ANY", "PRODUCER_POLICY_FENCED"], {
  $id: "ProducerPolicy",
  description: "Who may append: anyone, or only holders of the installed fencing token.",
  examples: ["PRODUCER_POLICY_FENCED"],
});

export const TimestampingMode = Type.Enum(
  [
    "TIMESTAMPING_MODE_CLIENT_PREFER",
    "TIMESTAMPING_MODE_CLIENT_REQUIRE",
    "TIMESTAMPING_MODE_ARRIVAL",
  ],
  {
    $id: "TimestampingMode",
    description:
      "Whose clock stamps a record: the client's when given, always the client's, or arrival time.",
    examples: ["TIMESTAMPING_MODE_ARRIVAL"],
  },
);

const ON_CREATE =
  "; on a create, the _UNSPECIFIED value (like leaving the field out) takes the default.";

/** The enum as a create body takes it: UNSPECIFIED, then its values. */
function onCreate(
  schema: { enum: readonly string[]; description?: string; examples?: unknown },
  unspecified: string,
  id: string,
) {
  return Type.Enum([unspecified, ...schema.enum], {
    $id: id,
    description: `${schema.description?.replace(/\.$/, "")}${ON_CREATE}`,
    examples: schema.examples,
  });
}

export const ClassOnCreate = onCreate(Class, "CLASS_UNSPECIFIED", "ClassOnCreate");
export const ProducerPolicyOnCreate = onCreate(
  ProducerPolicy,
  "PRODUCER_POLICY_UNSPECIFIED",
  "ProducerPolicyOnCreate",
);
export const TimestampingModeOnCreate = onCreate(
  TimestampingMode,
  "TIMESTAMPING_MODE_UNSPECIFIED",
  "TimestampingModeOnCreate",
);
