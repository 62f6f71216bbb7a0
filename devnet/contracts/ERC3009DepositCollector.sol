// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @notice ERC-3009's `receiveWithAuthorization` with a `bytes` signature, as USDC v2.2 has it.
interface IERC3009Receive {
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external;
}

/**
 * @title ERC3009DepositCollector (local world build)
 * @notice Pulls a payer's deposit into an x402 `batch-settlement` channel with the payer's
 *         ERC-3009 `ReceiveWithAuthorization`, signed to this contract (`to`) with the nonce
 *         `keccak256(abi.encode(channelId, salt))`, and hands the tokens to the settlement
 *         contract. The nonce binds the authorization to one channel: it cannot fund another.
 * @dev Written for the devnet from the x402 `batch-settlement` EVM scheme. `collectorData` is the
 *      encoding the x402 EVM package's facilitator builds: `abi.encode(validAfter, validBefore,
 *      salt, signature)`. Only the settlement contract may call `collect`: `receiveWithAuthorization`
 *      requires its caller to be `to`, so anyone else who called it would move the payer's tokens
 *      without crediting the channel. No constructor, no immutables: the runtime code is the whole
 *      contract, placed at the address the package names.
 */
contract ERC3009DepositCollector {
    /// @notice The x402BatchSettlement contract, the only caller, at its canonical address.
    address public constant BATCH_SETTLEMENT = 0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003;

    error OnlyBatchSettlement();
    error TokenTransferFailed();

    /**
     * @notice Receives `amount` of `token` from `payer` with the authorization in `collectorData`
     *         and transfers it to the settlement contract.
     * @param payer The channel's payer, who signed the authorization.
     * @param token The channel's token (an ERC-3009 token).
     * @param amount The deposit, exactly the authorization's `value`.
     * @param channelId The channel the deposit is for; with the salt, the authorization's nonce.
     * @param collectorData `abi.encode(uint256 validAfter, uint256 validBefore, uint256 salt, bytes signature)`.
     */
    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata collectorData) external {
        if (msg.sender != BATCH_SETTLEMENT) revert OnlyBatchSettlement();
        (uint256 validAfter, uint256 validBefore, uint256 salt, bytes memory signature) = abi.decode(collectorData, (uint256, uint256, uint256, bytes));
        bytes32 nonce = keccak256(abi.encode(channelId, salt));
        IERC3009Receive(token).receiveWithAuthorization(payer, address(this), amount, validAfter, validBefore, nonce, signature);
        (bool ok, bytes memory returned) = token.call(abi.encodeWithSelector(0xa9059cbb, msg.sender, amount));
        if (!ok || (returned.length != 0 && !abi.decode(returned, (bool)))) revert TokenTransferFailed();
    }
}
