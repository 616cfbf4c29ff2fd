// The configuration enums, by their proto names. UNSPECIFIED is never written: omit the field.
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
