/**
 * @generated SignedSource<<460a04c9faf6507fd7c646c365434cc8>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
import { FragmentRefs } from "relay-runtime";
export type AvailabilityRequestStatus = "COMPLETED" | "IN_PROGRESS" | "PENDING" | "%future added value";
export type RequestProgressSubscription$variables = {
  ids?: ReadonlyArray<string> | null | undefined;
};
export type RequestProgressSubscription$data = {
  readonly availabilityRequestUpdated: {
    readonly id: string;
    readonly networksProgressPercentage: number;
    readonly status: AvailabilityRequestStatus;
    readonly " $fragmentSpreads": FragmentRefs<"RequestAddress_availabilityRequest">;
  };
};
export type RequestProgressSubscription = {
  response: RequestProgressSubscription$data;
  variables: RequestProgressSubscription$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "ids"
  }
],
v1 = [
  {
    "kind": "Variable",
    "name": "ids",
    "variableName": "ids"
  }
],
v2 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "id",
  "storageKey": null
},
v3 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "status",
  "storageKey": null
},
v4 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "networksProgressPercentage",
  "storageKey": null
};
return {
  "fragment": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Fragment",
    "metadata": null,
    "name": "RequestProgressSubscription",
    "selections": [
      {
        "alias": null,
        "args": (v1/*:: as any*/),
        "concreteType": "AvailabilityRequest",
        "kind": "LinkedField",
        "name": "availabilityRequestUpdated",
        "plural": false,
        "selections": [
          (v2/*:: as any*/),
          (v3/*:: as any*/),
          (v4/*:: as any*/),
          {
            "args": null,
            "kind": "FragmentSpread",
            "name": "RequestAddress_availabilityRequest"
          }
        ],
        "storageKey": null
      }
    ],
    "type": "Subscription",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "RequestProgressSubscription",
    "selections": [
      {
        "alias": null,
        "args": (v1/*:: as any*/),
        "concreteType": "AvailabilityRequest",
        "kind": "LinkedField",
        "name": "availabilityRequestUpdated",
        "plural": false,
        "selections": [
          (v2/*:: as any*/),
          (v3/*:: as any*/),
          (v4/*:: as any*/),
          {
            "alias": null,
            "args": null,
            "concreteType": "Address",
            "kind": "LinkedField",
            "name": "address",
            "plural": false,
            "selections": [
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "postalCode",
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "city",
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "concreteType": "Coordinates",
                "kind": "LinkedField",
                "name": "coordinates",
                "plural": false,
                "selections": [
                  {
                    "alias": null,
                    "args": null,
                    "kind": "ScalarField",
                    "name": "latitude",
                    "storageKey": null
                  },
                  {
                    "alias": null,
                    "args": null,
                    "kind": "ScalarField",
                    "name": "longitude",
                    "storageKey": null
                  }
                ],
                "storageKey": null
              },
              (v2/*:: as any*/)
            ],
            "storageKey": null
          }
        ],
        "storageKey": null
      }
    ]
  },
  "params": {
    "cacheID": "0efb0d7de6f113e7edb93f213d7c0414",
    "id": null,
    "metadata": {},
    "name": "RequestProgressSubscription",
    "operationKind": "subscription",
    "text": "subscription RequestProgressSubscription(\n  $ids: [ID!]\n) {\n  availabilityRequestUpdated(ids: $ids) {\n    id\n    status\n    networksProgressPercentage\n    ...RequestAddress_availabilityRequest\n  }\n}\n\nfragment RequestAddress_availabilityRequest on AvailabilityRequest {\n  id\n  status\n  networksProgressPercentage\n  address {\n    postalCode\n    city\n    coordinates {\n      latitude\n      longitude\n    }\n    id\n  }\n}\n"
  }
};
})();

(node as any).hash = "9cc527e3e699726d38c510b60cf85ade";

export default node;
