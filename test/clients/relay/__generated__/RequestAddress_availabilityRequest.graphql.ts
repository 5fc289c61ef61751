/**
 * @generated SignedSource<<c8370fde8e9d960294969836d2d93495>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ReaderFragment } from 'relay-runtime';
export type AvailabilityRequestStatus = "COMPLETED" | "IN_PROGRESS" | "PENDING" | "%future added value";
import { FragmentRefs } from "relay-runtime";
export type RequestAddress_availabilityRequest$data = {
  readonly address: {
    readonly city: string;
    readonly coordinates: {
      readonly latitude: number;
      readonly longitude: number;
    } | null | undefined;
    readonly postalCode: string;
  };
  readonly id: string;
  readonly networksProgressPercentage: number;
  readonly status: AvailabilityRequestStatus;
  readonly " $fragmentType": "RequestAddress_availabilityRequest";
};
export type RequestAddress_availabilityRequest$key = {
  readonly " $data"?: RequestAddress_availabilityRequest$data;
  readonly " $fragmentSpreads": FragmentRefs<"RequestAddress_availabilityRequest">;
};

const node: ReaderFragment = {
  "argumentDefinitions": [],
  "kind": "Fragment",
  "metadata": null,
  "name": "RequestAddress_availabilityRequest",
  "selections": [
    {
      "alias": null,
      "args": null,
      "kind": "ScalarField",
      "name": "id",
      "storageKey": null
    },
    {
      "alias": null,
      "args": null,
      "kind": "ScalarField",
      "name": "status",
      "storageKey": null
    },
    {
      "alias": null,
      "args": null,
      "kind": "ScalarField",
      "name": "networksProgressPercentage",
      "storageKey": null
    },
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
        }
      ],
      "storageKey": null
    }
  ],
  "type": "AvailabilityRequest",
  "abstractKey": null
};

(node as any).hash = "55ca9b405b2ea8b417b71e5fda46bc24";

export default node;
